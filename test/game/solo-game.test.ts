import { describe, expect, it } from 'vitest';
import { gameFor, SOLO_GAME_ID, solo, useSoloLayouts } from '../../src/game/index.ts';
import type { MatchRecord, MoveRecord } from '../../src/model/records.ts';
import { replay } from '../../src/model/replay.ts';
import { botState, StateWriter, WireHistory } from '../../src/protocol/state.ts';
import { decodeMoves, encodeMove } from '../../src/redis/move-codec.ts';
import type { SoloState } from '../../src/reversi/solo.ts';
import { squareName } from '../../src/reversi/squares.ts';
import { seededRandom } from '../../src/support/random.ts';
import { loadSoloLayouts, soloLayoutBytes } from '../../src/support/solo-layout-key.ts';

const KEY = process.env.SOLO_SECRET!;
await loadSoloLayouts(KEY, () => Promise.reject(new Error('SOLO_SECRET is set in vitest.config.ts')));

/** A solo match record as the arena stores one: the bot on both sides. */
function soloRecord(layout: number, scoring: 'tokens' | 'points' = 'tokens'): MatchRecord {
  const player = { id: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH', name: 'soloist' };
  return {
    id: 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D',
    game: SOLO_GAME_ID,
    black: player,
    white: player,
    rules: { firstPlayer: 'black', captureRule: 'all', scoring, layout, timeLimitMs: 1000, overageMs: 0 },
    rated: false,
    status: 'running',
    createdBy: player.id,
    createdAt: 0,
    startedAt: 0,
    finishedAt: null,
    moveCount: 0,
    result: null,
    ratings: null,
  };
}

/** Plays a game through the seam only, each move a random legal action as the state lists them. */
function randomGame(layout: number, seed: number) {
  const match = soloRecord(layout, seed % 2 === 0 ? 'tokens' : 'points');
  const game = gameFor(SOLO_GAME_ID);
  const options = game.options(match.rules);
  const random = seededRandom(seed);
  let position = game.initialState(options) as SoloState;
  const moves: MoveRecord[] = [];
  const turns: { position: SoloState; state: ReturnType<typeof botState>; body: string }[] = [];
  // What the runner sends a push bot: the state written from its parts around the kept history.
  const writer = new StateWriter(match, 'black');
  const history = new WireHistory();
  while (!game.isOver(position)) {
    const turn = {
      match,
      moves,
      position,
      timeLimitMs: 1000,
      remainingOverageMs: 0,
      lastLatencyMs: null,
      opponentRating: 1500,
    };
    const state = botState(turn);
    turns.push({ position, state, body: writer.body({ ...turn, history }, history).toString('utf8') });
    const actions = state.legalActions!;
    const action = actions[Math.floor(random() * actions.length)]!;
    const applied = game.apply(position, action, options);
    if (!applied.ok) throw new Error(applied.message);
    moves.push({
      ply: moves.length + 1,
      player: 'black',
      square: action.action,
      colour: action.colour,
      flips: applied.flips,
      latencyMs: moves.length,
    });
    history.push(moves.at(-1)!);
    position = applied.state as SoloState;
  }
  return { match, game, options, moves, turns, position };
}

describe('the solo game behind the seam', () => {
  it('never shows a face-down token in a state it sends, over 100 random games', () => {
    let hiddenSeen = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const { turns } = randomGame(seed * 7919, seed);
      for (const { position, state } of turns) {
        const shown = new Map(state.tokens!.map((token) => [token.square, token]));
        position.cells.forEach((cell, index) => {
          if (cell.kind !== 'token' || cell.turned) return;
          hiddenSeen++;
          const square = squareName(index);
          expect(shown.get(square)).toStrictEqual({ square, hidden: true });
          expect(state.board[index >> 3]![index & 7]).toBe('?');
        });
        expect(state.captured).toEqual(position.captured);
      }
    }
    expect(hiddenSeen).toBeGreaterThan(5_000);
  });

  it('always ends, its score never falling, every token on the board or captured', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const { turns, position, game, options } = randomGame(seed, seed);
      let last = -1;
      for (const { state } of turns) {
        expect(state.score!).toBeGreaterThanOrEqual(last);
        last = state.score!;
        const onBoard = state.tokens!.length;
        expect(onBoard + state.captured!.length).toBe(24);
      }
      expect(game.isOver(position)).toBe(true);
      expect(game.outcome(position, options).counts.black).toBeGreaterThanOrEqual(last);
    }
  });

  it('lists each legal square once in legalMoves, and every coloured placement in legalActions', () => {
    const { turns } = randomGame(5, 5);
    for (const { state } of turns) {
      expect(state.legalMoves).toEqual([...new Set(state.legalActions!.map((a) => a.action))]);
      expect(state.you).toBe('black');
    }
  });

  it('is sent to a push bot as its state, byte for byte (tokens, score and coloured actions too)', () => {
    for (let seed = 1; seed <= 10; seed++) {
      for (const { state, body } of randomGame(seed * 31, seed).turns)
        expect(body).toBe(JSON.stringify(state));
    }
  });

  it('refuses an action without its colour, and takes no pass', () => {
    const options = solo.options({ layout: 1 });
    const start = solo.initialState(options);
    const [square] = solo.legalActions(start);
    expect(solo.apply(start, { action: square! }, options)).toMatchObject({ ok: false });
    expect(solo.mustPass(start)).toBe(false);
    expect(() => solo.pass(start)).toThrow();
  });

  it('refuses options outside the documented ones', () => {
    expect(() => solo.options({ layout: -1 } as never)).toThrow(/layout/);
    expect(() => solo.options({ layout: 2 ** 31 } as never)).toThrow(/layout/);
    expect(() => solo.options({ scoring: 'discs' } as never)).toThrow(/scores/);
  });
});

describe("a solo game's record", () => {
  it('packs each move with its colour, and decodes to the same moves', () => {
    const { moves, match, game, options } = randomGame(99, 3);
    const packed = Buffer.concat(moves.map((move) => encodeMove(move)));
    expect(packed.length).toBeLessThanOrEqual(moves.length * 4);
    expect(decodeMoves(packed, game, options)).toEqual(moves);
    const replayed = replay(match.rules, moves, game);
    expect(game.outcome(replayed.position, options)).toEqual(
      game.outcome(randomGame(99, 3).position, options),
    );
  });
});

describe('the layouts', () => {
  it('lay the same tokens for a number every time, other tokens under another key', () => {
    const tokensOf = (state: SoloState) => JSON.stringify(state.cells);
    const once = solo.initialState(solo.options({ layout: 12 }));
    expect(tokensOf(solo.initialState(solo.options({ layout: 12 })))).toBe(tokensOf(once));
    expect(tokensOf(solo.initialState(solo.options({ layout: 13 })))).not.toBe(tokensOf(once));
    expect(soloLayoutBytes(KEY)(12)).toEqual(soloLayoutBytes(KEY)(12));
    expect(soloLayoutBytes('another-key-of-16+')(12)).not.toEqual(soloLayoutBytes(KEY)(12));
  });

  it('come from one key a process: another key later is refused', () => {
    expect(() => useSoloLayouts(soloLayoutBytes('another-key-of-16+'))).toThrow(/one layout key/);
    expect(() => useSoloLayouts(soloLayoutBytes(KEY))).not.toThrow();
  });
});
