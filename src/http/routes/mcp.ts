import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import type { MatchService } from '../../arena/matches.ts';
import { requireBot } from '../../arena/principal.ts';
import type { PullService } from '../../arena/pull.ts';
import type { components } from '../../contract/index.ts';
import { actionChoices, gameFor, SOLO_GAME_ID } from '../../game/index.ts';
import { GAME_NOTATION, GAME_OVERVIEW, GAME_RULES } from '../../game/reversi-description.ts';
import { ArenaError } from '../../model/errors.ts';
import { replay } from '../../model/replay.ts';
import { boardGrid } from '../../protocol/board-grid.ts';
import { DIRECTIONS } from '../../reversi/index.ts';
import type { Stores } from '../../store/store.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import type { ClientOrigin } from '../rate-limit.ts';
import { createMatchBody, mcpRequestBody } from '../schemas.ts';
import { stopSignal } from '../sse.ts';

type MatchState = components['schemas']['MatchState'];

export interface McpRouterDeps {
  readonly pull: PullService;
  readonly matches: MatchService;
  readonly stores: Pick<Stores, 'matches' | 'ratings'>;
  readonly present: Presenter;
  /** Rated games a bot needs to be ranked on the leaderboard (LEADERBOARD_MIN_GAMES). */
  readonly minGames: number;
  readonly clientOrigin: ClientOrigin;
}

/** The opponent of `arena_challenge` when the agent names none. */
export const DEFAULT_MCP_OPPONENT = 'house-greedy';
const MAX_WAIT_MS = 30_000;
/** Refusals of a player's own move, answered with the moves it may play instead. */
const PLAYER_REFUSALS = new Set(['matches/illegal-action', 'matches/not-your-turn']);

/** The rules as the `arena://rules` resource gives them: the published rule sheet, as text. */
const RULES_TEXT = [
  GAME_OVERVIEW,
  '',
  'Rules:',
  ...GAME_RULES.map((rule, i) => `${i + 1}. ${rule}`),
  '',
  'Notation:',
  ...Object.values(GAME_NOTATION).map((line) => `- ${line}`),
].join('\n');

/** A tool's answer: the structured content, and the same as JSON text for a client that reads text only. */
function answer(content: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(content) }], structuredContent: content };
}

/** A refusal a model can act on: the arena's code and sentence, and what it may do instead. */
function refusal(error: unknown, more: Record<string, unknown> = {}): CallToolResult {
  if (!(error instanceof ArenaError)) throw error;
  const content = { error: { code: error.code, message: error.message }, ...more };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(content) }],
    structuredContent: content,
  };
}

/**
 * The pull API's state with what a model reads best beside it: the board drawn, whether it is its
 * turn and whether the game is over, the discs each side has (`score`) and both sides' clocks, from
 * the match's record (its overage banks after every recorded move).
 */
async function described(deps: McpRouterDeps, state: MatchState): Promise<Record<string, unknown>> {
  const last = state.history.at(-1);
  const { match, moves } = await deps.matches.get(state.matchId);
  const { banks, lastLatency } = replay(match.rules, moves, gameFor(match.game));
  const clock = (side: 'black' | 'white') => ({
    remainingOverageMs: Math.max(0, Math.round(banks[side])),
    lastLatencyMs: lastLatency[side],
  });
  const discs = (letter: string) => state.board.join('').split(letter).length - 1;
  return {
    ...state,
    yourTurn: state.toMove !== null && state.toMove === state.you,
    over: state.status !== 'queued' && state.status !== 'running',
    // The solo game's state has its own `score` (tokens or points); Reversi's is the discs a side.
    score: state.game === SOLO_GAME_ID ? state.score : { black: discs('B'), white: discs('W') },
    clocks: { timeLimitMs: match.rules.timeLimitMs, black: clock('black'), white: clock('white') },
    boardText: boardGrid(state.board, last && last.square !== 'pass' ? last.square : null),
  };
}

/**
 * The arena's Model Context Protocol server at /mcp (Streamable HTTP, stateless: each request gets a
 * server bound to the bot whose token it carries, so any API process answers any request). A thin
 * shell over the services the pull API uses: the same checks, the same errors, the same field names.
 */
export function mcpRouter(deps: McpRouterDeps): Router {
  const router = Router();
  router.post('/mcp', async (req, res) => {
    const botId = requireBot(principalOf(res));
    // The envelope is checked here, so that a body that is no JSON-RPC message is a problem as
    // everywhere else in the API; what is inside (the method, its params) is the SDK's to check.
    parse(mcpRequestBody, req.body, 'body');
    const server = serverFor(deps, req, res, botId);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // GET and DELETE (a server stream, a session's end) are 405s from unknownRoute: stateless, POST only.
  return router;
}

function serverFor(deps: McpRouterDeps, req: Request, res: Response, botId: string): McpServer {
  const principal = principalOf(res);
  const server = new McpServer(
    { name: 'reversi-arena', version: '1.0.0' },
    {
      instructions:
        'You play Reversi (Othello) in the Reversi Arena as the bot whose token you connected with. Start a game ' +
        'with arena_challenge, then loop: arena_state with waitMs to wait for your turn, arena_play with one of ' +
        'legalMoves. The rules are the arena://rules resource.',
    },
  );

  server.registerResource(
    'rules',
    'arena://rules',
    {
      title: 'Reversi rules',
      description: "The arena's published rules and notation.",
      mimeType: 'text/plain',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: RULES_TEXT }] }),
  );

  server.registerPrompt(
    'play_a_game',
    {
      title: 'Play a game',
      description: 'Walks you through a whole match against an opponent you name, or a house bot.',
      argsSchema: { opponent: z.string().optional() },
    },
    ({ opponent }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              `Play one game of Reversi in the arena against ${opponent ?? DEFAULT_MCP_OPPONENT}.`,
              `1. Call arena_challenge with opponent "${opponent ?? DEFAULT_MCP_OPPONENT}"; keep the matchId.`,
              '2. Call arena_state with that matchId and waitMs 30000 until yourTurn is true or over is true.',
              '3. Read boardText (your colour is `you`; B black, W white; the last move is in brackets) and pick one of legalMoves.',
              '4. Call arena_play with the matchId and that move; go back to 2 until over is true, then report the result.',
              'Each move has a time limit (timeLimitMs, plus remainingOverageMs): answer in time, or the game is lost.',
            ].join('\n'),
          },
        },
      ],
    }),
  );

  server.registerTool(
    'arena_challenge',
    {
      title: 'Start a match',
      description:
        `Challenges another bot to an unrated match and answers its matchId. opponent: a bot's id or name (default ${DEFAULT_MCP_OPPONENT}, ` +
        'a house bot that is always there). colour: the colour you play (white moves first). timeLimitMs: the time you and your ' +
        "opponent have for each move, within the arena's bounds (GET /v1/games/reversi); rules: other rules options.",
      inputSchema: {
        opponent: z.string().min(1).max(64).optional(),
        colour: z.enum(['black', 'white']).optional(),
        timeLimitMs: z.number().int().positive().optional(),
        rules: z.record(z.string(), z.unknown()).optional(),
      },
    },
    async ({ opponent, colour = 'black', timeLimitMs, rules }) => {
      try {
        const other = opponent ?? DEFAULT_MCP_OPPONENT;
        const sides = colour === 'black' ? { black: botId, white: other } : { black: other, white: botId };
        const withTime = timeLimitMs === undefined ? rules : { ...rules, timeLimitMs };
        const body = parse(createMatchBody, { ...sides, ...(withTime ? { rules: withTime } : {}) }, 'body');
        const match = await deps.matches.create(principal, body, { origin: deps.clientOrigin(req) });
        return answer({
          matchId: match.id,
          status: match.status,
          you: colour,
          opponent: colour === 'black' ? match.white : match.black,
          rules: match.rules,
        });
      } catch (error) {
        return refusal(error);
      }
    },
  );

  server.registerTool(
    'arena_state',
    {
      title: 'Read a match',
      description:
        'The state of one of your matches: toMove, you, board (rows, rank 1 first) and boardText (a grid with coordinates, ' +
        'the last move in brackets), legalMoves (yours), score (discs a side; in a solo game, its score), clocks (the time limit a move and each ' +
        "side's overage bank left), the result once over. With waitMs (up to 30000) it " +
        'waits until it is your turn or the game is over, as the pull API long poll does.',
      inputSchema: { matchId: z.string(), waitMs: z.number().int().min(0).max(MAX_WAIT_MS).optional() },
    },
    async ({ matchId, waitMs = 0 }) => {
      try {
        return answer(
          await described(deps, await deps.pull.awaitTurn(principal, matchId, waitMs, stopSignal(res))),
        );
      } catch (error) {
        return refusal(error);
      }
    },
  );

  server.registerTool(
    'arena_play',
    {
      title: 'Play a move',
      description:
        'Plays one of your legalMoves (a square such as "d3") in a match where it is your turn, and answers the state after it; ' +
        "in a solo game, also the colour of the disc (one of the state's legalActions). " +
        'An illegal move, a move out of turn or after the end is refused with the reason and the legal moves.',
      inputSchema: {
        matchId: z.string(),
        move: z.string(),
        direction: z.enum(DIRECTIONS).optional(),
        // The solo game's: the colour of the disc placed (one of the state's legalActions).
        colour: z.enum(['black', 'white']).optional(),
      },
    },
    async ({ matchId, move, direction, colour }) => {
      let before: MatchState | undefined;
      try {
        before = await deps.pull.state(principal, matchId);
        const action = { action: move, ply: before.ply, ...actionChoices({ direction, colour }) };
        const { state } = await deps.pull.act(principal, matchId, action, undefined, stopSignal(res));
        return answer(await described(deps, state));
      } catch (error) {
        // What to play instead, for the player whose move it was; nothing more for anyone else.
        const yours = before !== undefined && error instanceof ArenaError && PLAYER_REFUSALS.has(error.code);
        return refusal(
          error,
          yours ? { legalMoves: before!.legalMoves, toMove: before!.toMove, you: before!.you } : {},
        );
      }
    },
  );

  server.registerTool(
    'arena_my_matches',
    {
      title: 'List your matches',
      description:
        'Your matches, newest first (at most 20): matchId, status, both players, the result once over.',
      inputSchema: { status: z.enum(['queued', 'running', 'finished', 'aborted']).optional() },
    },
    async ({ status }) => {
      const page = await deps.stores.matches.listMatches({ botId, ...(status ? { status } : {}), limit: 20 });
      return answer({ items: page.items.map((match) => deps.present.matchSummary(match, principal)) });
    },
  );

  server.registerTool(
    'arena_leaderboard',
    {
      title: 'Read the leaderboard',
      description:
        'The ranked bots, best Elo rating first (at most limit, default 10); pool "slow" for the slow pool, ' +
        'where bots that opted in (PATCH /v1/bots/{id} { "slowPool": true }) play rated games at a slow time control.',
      inputSchema: {
        limit: z.number().int().min(1).max(50).optional(),
        pool: z.enum(['arena', 'slow']).optional(),
      },
    },
    async ({ limit = 10, pool = 'arena' }) => {
      const split = await deps.stores.ratings.leaderboardSplit({
        offset: 0,
        limit,
        minGames: deps.minGames,
        unrankedLimit: limit,
        ...(pool === 'slow' ? { pool } : {}),
      });
      return answer({
        pool,
        items: split.ranked.map((row) => deps.present.leaderboardEntry(row.rank, row.bot, row.strength)),
        total: split.rankedTotal,
        unranked: split.unranked.map((row) => deps.present.leaderboardEntry(null, row.bot, row.strength)),
      });
    },
  );
  return server;
}
