/**
 * An agent that plays in the arena through its MCP server (`/mcp`) with nothing but the official
 * MCP SDK's client and a bot token: the loop a language-model agent runs, with a random choice
 * standing in for the model (nothing here calls a model service).
 *
 *   npx tsx examples/agents/mcp-agent.ts --arena "$ARENA" --token "$BOT_TOKEN" [--opponent house-random] [--games 1]
 */
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What the tools answer, as far as this agent reads it (the pull API's field names). */
interface ToolState {
  readonly matchId: string;
  readonly you: 'black' | 'white';
  readonly yourTurn: boolean;
  readonly over: boolean;
  readonly legalMoves: string[];
  readonly boardText: string;
  readonly result: { readonly winner: string | null; readonly discs: Record<string, number> } | null;
  readonly error?: { readonly code: string; readonly message: string };
}

/** Picks a move: here at random; a model would read `boardText` and choose. */
export type Policy = (state: ToolState) => string;
export const randomPolicy: Policy = (state) =>
  state.legalMoves[Math.floor(Math.random() * state.legalMoves.length)]!;

/** Connects to the arena's MCP server as the bot whose token this is. */
export async function connectAgent(arena: string, token: string): Promise<Client> {
  const client = new Client({ name: 'reversi-arena-example-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', arena), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolState> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.structuredContent as unknown as ToolState;
  if (result.isError) throw new Error(`${name}: ${content.error?.code} ${content.error?.message}`);
  return content;
}

/** Plays one game against `opponent` and answers its result (from the agent's side). */
export async function playGame(client: Client, opponent: string, policy: Policy = randomPolicy) {
  const { matchId, you } = await tool(client, 'arena_challenge', { opponent });
  let moves = 0;
  for (;;) {
    const state = await tool(client, 'arena_state', { matchId, waitMs: 30_000 });
    if (state.over) {
      const winner = state.result?.winner ?? null;
      return { matchId, you, moves, outcome: winner === null ? 'draw' : winner === you ? 'won' : 'lost' };
    }
    if (!state.yourTurn) continue;
    await tool(client, 'arena_play', { matchId, move: policy(state) });
    moves++;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      arena: { type: 'string', default: `http://localhost:${process.env.PORT ?? 3000}` },
      token: { type: 'string', default: process.env.BOT_TOKEN },
      opponent: { type: 'string', default: 'house-random' },
      games: { type: 'string', default: '1' },
    },
  });
  if (!values.token) throw new Error('give the bot token with --token or BOT_TOKEN');
  const client = await connectAgent(values.arena!, values.token);
  try {
    for (let game = 0; game < Number(values.games); game++) {
      const played = await playGame(client, values.opponent!);
      console.log(`${played.matchId}: ${played.outcome} as ${played.you} in ${played.moves} moves`);
    }
  } finally {
    await client.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
