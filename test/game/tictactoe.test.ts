import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchState } from '../../src/contract/index.ts';
import { gameFor, registerGame } from '../../src/game/index.ts';
import type { MatchRecord } from '../../src/model/records.ts';
import { newId } from '../../src/support/ids.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { ticTacToe } from './tictactoe.ts';

/**
 * The game seam proved by a second game: tic-tac-toe (test/game/tictactoe.ts) is registered here and
 * nowhere else, and a match of it is played by the production runner, store and pull API, with every
 * response checked against openapi.yaml. The public API creates Reversi matches only, so the match is
 * put in the store directly.
 */
registerGame(ticTacToe);

let world: PullArena;
beforeAll(async () => {
  world = await startPullArena();
});
afterAll(() => world.close());

/** A tic-tac-toe match between two bots, stored as queued, as the API would store a Reversi one. */
async function storeMatch(black: RegisteredBot, white: RegisteredBot): Promise<string> {
  const now = Date.now();
  const match: MatchRecord = {
    id: newId('match', now, randomBytes),
    game: ticTacToe.id,
    black: { id: black.id, name: black.name },
    white: { id: white.id, name: white.name },
    // Records and the contract name Reversi's options with every match's rules; tic-tac-toe drops them.
    rules: { firstPlayer: 'black', captureRule: 'all', scoring: 'discs', timeLimitMs: 10_000, overageMs: 0 },
    rated: false,
    status: 'queued',
    createdBy: 'admin',
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    moveCount: 0,
    result: null,
    ratings: null,
  };
  expect(await world.h.stores.matches.createMatch(match)).toBe('created');
  return match.id;
}

interface Seen {
  /** Every state the bot was asked to move in. */
  readonly turns: MatchState[];
  /** The answers to the posts the arena refused. */
  readonly refused: { status: number; body: Record<string, unknown> }[];
  /** The state once the match was over. */
  final: MatchState | null;
}

/**
 * A pull bot over real HTTP: long-polls its state, posts the first legal square on its turn, until
 * the match is over. `illegal` names a square it tries first on its turn `n` (counting from 1).
 */
async function pullBot(bot: RegisteredBot, id: string, illegal?: { turn: number; square: string }) {
  const seen: Seen = { turns: [], refused: [], final: null };
  const headers = { ...bearer(bot.token), 'content-type': 'application/json' };
  const post = (body: object) =>
    fetch(`${world.base}/v1/matches/${id}/actions`, { method: 'POST', headers, body: JSON.stringify(body) });
  for (;;) {
    const res = await fetch(`${world.base}/v1/matches/${id}/state?waitMs=5000`, { headers });
    expect(res.status).toBe(200);
    const state = (await res.json()) as MatchState;
    if (state.toMove === null) {
      seen.final = state;
      return seen;
    }
    if (state.toMove !== state.you || state.deadline === null) continue;
    seen.turns.push(state);
    if (illegal?.turn === seen.turns.length) {
      const refused = await post({ action: illegal.square, ply: state.ply });
      seen.refused.push({ status: refused.status, body: (await refused.json()) as Record<string, unknown> });
    }
    const played = await post({ action: state.legalMoves[0], ply: state.ply });
    expect(played.status).toBe(200);
  }
}

describe('a second game registered beside Reversi (tic-tac-toe)', () => {
  it('is found by its id', () => {
    expect(gameFor('tictactoe')).toBe(ticTacToe);
    expect(gameFor('reversi').id).toBe('reversi');
  });

  describe('played by two pull bots posting actions over HTTP', () => {
    it('runs to the end through the runner, the store and the pull API, in its own shape', async () => {
      const { h, arena } = world;
      const xs = await registerBot(h, { name: 'ttt-x' });
      const os = await registerBot(h, { name: 'ttt-o' });
      const id = await storeMatch(xs, os);
      const played = arena.runner.play(id, new AbortController().signal);
      // Both play the first free square: X a1, O b1, X c1, O a2, X b2, O c2, X a3 (c1-b2-a3 wins).
      const [black, white] = await Promise.all([pullBot(xs, id, { turn: 2, square: 'a1' }), pullBot(os, id)]);
      expect(await played).toBe('finished');

      const first = black.turns[0]!;
      expect(first).toMatchObject({ game: 'tictactoe', you: 'black', toMove: 'black', ply: 1 });
      expect(first.board).toEqual(['...', '...', '...']);
      expect(first.legalMoves).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3']);
      expect(white.turns[0]).toMatchObject({
        you: 'white',
        ply: 2,
        history: [{ ply: 1, player: 'black', square: 'a1' }],
      });
      expect(black.turns).toHaveLength(4);
      expect(white.turns).toHaveLength(3);

      // The pull service judged the action with the game's rules, not Reversi's.
      expect(black.refused).toEqual([
        {
          status: 422,
          body: expect.objectContaining({
            type: 'urn:reversi-arena:problem:matches/illegal-action',
            detail: 'a1 is not legal: a1 is taken',
            legalMoves: ['c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3'],
          }),
        },
      ]);

      // A bot stops at the game's end, which it may see before the runner records the result.
      for (const final of [black.final!, white.final!]) {
        expect(final).toMatchObject({ game: 'tictactoe', toMove: null, legalMoves: [] });
        expect(final.board).toEqual(['XOX', 'OXO', 'X..']);
      }
      const spectator = await fetch(`${world.base}/v1/matches/${id}/state`);
      expect(spectator.status).toBe(200);
      expect(await spectator.json()).toMatchObject({
        game: 'tictactoe',
        status: 'finished',
        board: ['XOX', 'OXO', 'X..'],
        result: { winner: 'black', discs: { black: 4, white: 3 }, reason: 'completed' },
      });

      const match = await h.stores.matches.getMatch(id);
      expect(match).toMatchObject({
        game: 'tictactoe',
        status: 'finished',
        moveCount: 7,
        result: { winner: 'black', discs: { black: 4, white: 3 }, reason: 'completed' },
      });
      const moves = await h.stores.matches.getMoves(id);
      expect(moves.map(({ ply, player, square, flips }) => ({ ply, player, square, flips }))).toEqual(
        ['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3'].map((square, i) => ({
          ply: i + 1,
          player: i % 2 === 0 ? 'black' : 'white',
          square,
          flips: [],
        })),
      );

      // The public match document serves it too (and passes response validation).
      const doc = await fetch(`${world.base}/v1/matches/${id}`);
      expect(doc.status).toBe(200);
      expect(await doc.json()).toMatchObject({
        status: 'finished',
        moveCount: 7,
        result: { winner: 'black' },
      });
    });
  });
});
