import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../src/wiring/processes.ts';
import { type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let agent: RegisteredBot;
let other: RegisteredBot;
const clients: Client[] = [];
beforeAll(async () => {
  h = await createHarness({ HOUSE_BOTS: 'true', SHUTDOWN_GRACE_MS: '0' });
  site = await serve(h);
  workers = await startWorkers(h.config, pino({ level: 'silent' }));
  agent = await registerBot(h, { name: 'mcp-agent' });
  other = await registerBot(h, { name: 'mcp-other' });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await workers?.close();
  await site?.close();
  await h?.close();
});

/** An MCP client of the official SDK, connected to the arena over Streamable HTTP with `token`. */
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'arena-test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${site.origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type Structured = Record<string, unknown> & {
  matchId?: string;
  yourTurn?: boolean;
  over?: boolean;
  legalMoves?: string[];
  error?: { code: string; message: string };
};
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]!.text;
  // The same content twice: structured, and as JSON text for a client that reads text only.
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return { isError: result.isError === true, content: result.structuredContent as Structured };
}

describe('the MCP server at /mcp', { timeout: 60_000 }, () => {
  it('offers the arena tools, the rules and a prompt', async () => {
    const client = await connect(agent.token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'arena_challenge',
      'arena_leaderboard',
      'arena_my_matches',
      'arena_play',
      'arena_state',
    ]);
    const rules = await client.readResource({ uri: 'arena://rules' });
    expect((rules.contents[0] as { text: string }).text).toContain('White moves first');
    const prompt = await client.getPrompt({ name: 'play_a_game', arguments: { opponent: 'house-random' } });
    const content = prompt.messages[0]?.content;
    expect(content?.type === 'text' ? content.text : '').toContain(
      'arena_challenge with opponent "house-random"',
    );
  });

  it('plays a whole game against a house bot, refusing an illegal move with the legal ones', async () => {
    const client = await connect(agent.token);
    const challenge = await call(client, 'arena_challenge', { opponent: 'house-random', colour: 'white' });
    expect(challenge.isError).toBe(false);
    const matchId = challenge.content.matchId!;
    expect(challenge.content).toMatchObject({ you: 'white', opponent: { name: 'house-random' } });

    let refused = false;
    let moves = 0;
    for (;;) {
      const { content: state } = await call(client, 'arena_state', { matchId, waitMs: 10_000 });
      expect(state.matchId).toBe(matchId);
      expect(state.boardText).toMatch(/^ {5}a {2}b {2}c/);
      // The discs a side, as the board shows them, and both sides' clocks.
      const board = (state.board as string[]).join('');
      expect(state.score).toEqual({ black: board.split('B').length - 1, white: board.split('W').length - 1 });
      expect(state.clocks).toMatchObject({
        timeLimitMs: 1000,
        black: { remainingOverageMs: expect.any(Number) },
        white: { remainingOverageMs: expect.any(Number) },
      });
      if (state.over) {
        expect(state.result).not.toBeNull();
        break;
      }
      if (!state.yourTurn) continue;
      if (!refused) {
        const occupied = await call(client, 'arena_play', { matchId, move: 'd4' });
        expect(occupied.isError).toBe(true);
        expect(occupied.content.error?.code).toBe('matches/illegal-action');
        expect(occupied.content.legalMoves).toEqual(state.legalMoves);
        refused = true;
      }
      const played = await call(client, 'arena_play', { matchId, move: state.legalMoves![0] });
      expect(played.isError, JSON.stringify(played.content)).toBe(false);
      moves++;
    }
    expect(moves).toBeGreaterThan(5);
    const { content: mine } = await call(client, 'arena_my_matches', { status: 'finished' });
    expect((mine.items as { id: string }[]).map((match) => match.id)).toContain(matchId);
    const record = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(record.status).toBe('finished');
    expect(record.result.reason).toBe('completed');
  });

  it('plays a solo game, each move with the colour of its disc', async () => {
    const started = await request(h.app)
      .post('/v1/solo')
      .set({ authorization: `Bearer ${agent.token}` })
      .send({ layout: 21 });
    expect(started.status).toBe(202);
    const matchId = started.body.id as string;
    const client = await connect(agent.token);
    let moves = 0;
    for (;;) {
      const { content: state } = await call(client, 'arena_state', { matchId, waitMs: 10_000 });
      if (state.over) break;
      if (!state.yourTurn) continue;
      expect(typeof state.score).toBe('number');
      const [first] = state.legalActions as { action: string; colour: string }[];
      const played = await call(client, 'arena_play', {
        matchId,
        move: first!.action,
        colour: first!.colour,
      });
      expect(played.isError, JSON.stringify(played.content)).toBe(false);
      moves++;
    }
    const record = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(record).toMatchObject({ game: 'solo', status: 'finished', moveCount: moves });
    expect(record.result.reason).toBe('completed');
  });

  it("refuses a bad token, and a bot's moves in another bot's match, without showing more", async () => {
    await expect(connect('not-a-token')).rejects.toThrow(/401/);
    const client = await connect(agent.token);
    const { content } = await call(client, 'arena_challenge', { opponent: 'house-greedy' });
    const stranger = await connect(other.token);
    const meddled = await call(stranger, 'arena_play', { matchId: content.matchId, move: 'c4' });
    expect(meddled.isError).toBe(true);
    expect(meddled.content.error?.code).toBe('matches/not-a-player');
    expect(Object.keys(meddled.content)).toEqual(['error']);
    const missing = await call(client, 'arena_state', { matchId: 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D' });
    expect(missing.content.error?.code).toBe('matches/not-found');
  });

  it("lets a challenge ask for minutes a move, up to CHALLENGE_TIME_LIMIT_MS_MAX; the arena's own matches keep theirs", async () => {
    const client = await connect(agent.token);
    const slow = await call(client, 'arena_challenge', { opponent: 'house-random', timeLimitMs: 300_000 });
    expect(slow.isError).toBe(false);
    expect(slow.content.rules).toMatchObject({ timeLimitMs: 300_000 });
    const tooSlow = await call(client, 'arena_challenge', { opponent: 'house-random', timeLimitMs: 600_001 });
    expect(tooSlow.content.error?.code).toBe('request/invalid');
    const game = (await request(h.app).get('/v1/games/reversi')).body;
    expect(game.limits.challengeTimeLimitMs.max).toBe(600_000);
    const admin = await request(h.app)
      .post('/v1/matches')
      .set('authorization', `Bearer ${h.config.adminToken}`)
      .send({ black: agent.id, white: other.id, rules: { timeLimitMs: 300_000 } });
    expect(admin.status).toBe(400);
  });

  it('answers GET with 405: a stateless server has no stream of its own', async () => {
    const res = await request(h.app).get('/mcp').set('authorization', `Bearer ${agent.token}`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});
