import { describe, expect, it } from 'vitest';
import { reversi } from '../game/index.ts';
import type { MatchRecord, MoveRecord } from '../model/records.ts';
import {
  decodeMatch,
  encodeHistoryEntry,
  HISTORY_FIELDS,
  historyEntryOf,
  historyFieldsOf,
  matchFields,
} from './codec.ts';
import { CorruptMovesError, decodeMoves, encodeMove, UnencodableMoveError } from './move-codec.ts';

const FILES = 'abcdefgh';
const ALL_SQUARES = [...FILES].flatMap((file) => [1, 2, 3, 4, 5, 6, 7, 8].map((rank) => `${file}${rank}`));

/** Plays a whole game by a fixed rule (the n-th legal move), recording moves as the runner does. */
function playedGame(captureRule: 'all' | 'single-direction', pick: (ply: number) => number): MoveRecord[] {
  const options = reversi.options({ captureRule });
  let position = reversi.initialState(options);
  const moves: MoveRecord[] = [];
  while (!reversi.isOver(position)) {
    const ply = moves.length + 1;
    const player = reversi.toMove(position);
    if (reversi.mustPass(position)) {
      moves.push({ ply, player, square: 'pass', flips: [], latencyMs: 0 });
      position = reversi.pass(position);
      continue;
    }
    const legal = reversi.legalActions(position);
    const action = legal[pick(ply) % legal.length]!;
    // Under single-direction capture the mover names one of the lines its square traps.
    const direction =
      captureRule === 'single-direction'
        ? ['n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw'].find(
            (d) => reversi.apply(position, { action, direction: d }, options).ok,
          )
        : undefined;
    const applied = reversi.apply(position, { action, ...(direction ? { direction } : {}) }, options);
    if (!applied.ok) throw new Error(applied.message);
    moves.push({
      ply,
      player,
      square: action,
      ...(direction ? { direction } : {}),
      flips: [...applied.flips],
      latencyMs: ply * 977,
    });
    position = applied.state;
  }
  return moves;
}

const packed = (moves: readonly MoveRecord[]) => Buffer.concat(moves.map(encodeMove));

describe('the packed move encoding', () => {
  describe('one ply', () => {
    it('gives every square a1..h8 its own code and reads it back', () => {
      const codes = ALL_SQUARES.map((square) => encodeMove({ square, latencyMs: 0 }));
      expect(new Set(codes.map((code) => code[0])).size).toBe(64);
      for (const code of codes) expect(code).toHaveLength(2);
    });

    it('writes a pass as one byte and its latency', () => {
      expect(encodeMove({ square: 'pass', latencyMs: 0 })).toEqual(Buffer.from([0x7f, 0]));
    });

    it('writes a direction as one more byte, for each of the eight', () => {
      const directions = ['n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw'];
      const codes = directions.map((direction) => encodeMove({ square: 'd3', direction, latencyMs: 1 }));
      expect(codes.map((code) => code.length)).toEqual(directions.map(() => 3));
      expect(new Set(codes.map((code) => code[1])).size).toBe(8);
    });

    it('writes latencies as varints: 1 byte below 128 ms, 2 below 16,384, more for big ones', () => {
      const size = (latencyMs: number) => encodeMove({ square: 'a1', latencyMs }).length - 1;
      expect([0, 127, 128, 16_383, 16_384, 2 ** 31, Number.MAX_SAFE_INTEGER].map(size)).toEqual([
        1, 1, 2, 2, 3, 5, 8,
      ]);
    });

    it('refuses what it cannot write back exactly', () => {
      expect(() => encodeMove({ square: 'z9', latencyMs: 0 })).toThrow(UnencodableMoveError);
      expect(() => encodeMove({ square: 'd3', direction: 'up', latencyMs: 0 })).toThrow(UnencodableMoveError);
      expect(() => encodeMove({ square: 'd3', latencyMs: 1.5 })).toThrow(UnencodableMoveError);
      expect(() => encodeMove({ square: 'd3', latencyMs: -1 })).toThrow(UnencodableMoveError);
    });
  });

  describe('a whole game', () => {
    for (const captureRule of ['all', 'single-direction'] as const) {
      for (const [name, pick] of [
        ['first legal moves', () => 0],
        ['varied moves', (ply: number) => ply * 7 + 3],
      ] as const) {
        it(`reads back every record as played (${captureRule}, ${name}), flips replayed`, () => {
          const moves = playedGame(captureRule, pick);
          const options = reversi.options({ captureRule });
          expect(decodeMoves(packed(moves), reversi, options)).toEqual(moves);
          expect(packed(moves).length).toBeLessThan(moves.length * 5);
        });
      }
    }

    it('reads a game with passes and latencies past 2^32 ms', () => {
      const moves = playedGame('all', (ply) => ply * 13).map((move, i) => ({
        ...move,
        latencyMs: i % 2 === 0 ? 2 ** 33 + i : move.latencyMs,
      }));
      expect(decodeMoves(packed(moves), reversi, reversi.options())).toEqual(moves);
    });

    it('keeps the opening plies the arena played, 2 bytes each and marked, before the bots’ moves', () => {
      const options = reversi.options({ opening: 'o-1ea3b3b1' });
      let position = reversi.initialState(options);
      const moves: MoveRecord[] = reversi.openingActions(options).map(({ action }, i) => {
        const applied = reversi.apply(position, { action }, options);
        if (!applied.ok) throw new Error(applied.message);
        const move = {
          ply: i + 1,
          player: reversi.toMove(position),
          square: action,
          flips: [...applied.flips],
          latencyMs: 0,
          opening: true as const,
        };
        position = applied.state;
        return move;
      });
      const [next] = reversi.legalActions(position);
      const applied = reversi.apply(position, { action: next! }, options);
      if (!applied.ok) throw new Error(applied.message);
      const bot: MoveRecord = {
        ply: moves.length + 1,
        player: reversi.toMove(position),
        square: next!,
        flips: [...applied.flips],
        latencyMs: 0,
      };
      const bytes = packed([...moves, bot]);
      expect(bytes.length).toBe(2 * moves.length + 2);
      expect(bytes[0]).toBe(0xff);
      expect(decodeMoves(bytes, reversi, options)).toEqual([...moves, bot]);
    });

    it('refuses an opening ply that took time, named a direction or passed', () => {
      for (const move of [
        { square: 'f4', latencyMs: 3, opening: true as const },
        { square: 'f4', direction: 'n', latencyMs: 0, opening: true as const },
        { square: 'pass', latencyMs: 0, opening: true as const },
      ]) {
        expect(() => encodeMove(move)).toThrow(UnencodableMoveError);
      }
      expect(() => decodeMoves(Buffer.from([0xff]), reversi, reversi.options())).toThrow(CorruptMovesError);
      expect(() => decodeMoves(Buffer.from([0xff, 0x7f]), reversi, reversi.options())).toThrow(
        CorruptMovesError,
      );
    });

    it('calls a record that does not replay corrupt', () => {
      const options = reversi.options();
      expect(() =>
        decodeMoves(
          packed([{ ply: 1, player: 'black', square: 'a1', flips: [], latencyMs: 0 }]),
          reversi,
          options,
        ),
      ).toThrow(CorruptMovesError);
      expect(() => decodeMoves(Buffer.from([0x13, 0x80]), reversi, options)).toThrow(CorruptMovesError);
    });
  });
});

describe('the compact match record', () => {
  const match: MatchRecord = {
    id: 'match_01JC3S0M0F7ZP4C8W4Y4N0Y8QH',
    game: 'reversi',
    black: { id: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8Q1', name: 'a-bot-with-a-thirty-two-char-nam' },
    white: { id: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8Q2', name: 'eve' },
    rules: {
      firstPlayer: 'white',
      captureRule: 'single-direction',
      scoring: 'empties-to-winner',
      timeLimitMs: 1000,
      overageMs: 5000,
    },
    rated: true,
    status: 'finished',
    createdBy: 'admin',
    createdAt: 1_700_000_000_000,
    startedAt: 1_700_000_000_100,
    finishedAt: 1_700_000_000_900,
    moveCount: 60,
    result: { winner: 'white', discs: { black: 20, white: 44 }, reason: 'completed' },
    ratings: {
      black: { before: 1562.7883491667567, after: 1555.8587345398437 },
      white: { before: 1500, after: 1516.25 },
    },
  };

  it('reads back as written, with every value short enough for a listpack hash', () => {
    const fields = matchFields(match);
    expect(decodeMatch(fields)).toEqual(match);
    for (const value of Object.values(fields)) expect(value.length).toBeLessThanOrEqual(64);
  });

  it('keeps the opening in the rules field, and reads a field without one as the standard start', () => {
    const opened: MatchRecord = {
      ...match,
      rules: { ...match.rules, captureRule: 'all', opening: 'o-1ea3b3b1' },
    };
    const fields = matchFields(opened);
    expect(fields.rules).toBe('white all empties-to-winner 1000 5000 o-1ea3b3b1');
    expect(decodeMatch(fields)).toEqual(opened);
    expect(decodeMatch(matchFields(match))!.rules).not.toHaveProperty('opening');
  });

  it("keeps a solo game's layout in the rules field, as short as a listpack wants it", () => {
    const solo: MatchRecord = {
      ...match,
      game: 'solo',
      rules: {
        firstPlayer: 'black',
        captureRule: 'all',
        scoring: 'points',
        timeLimitMs: 1000,
        overageMs: 5000,
        layout: 2147483647,
      },
      ratings: null,
    };
    const fields = matchFields(solo);
    expect(fields.rules).toBe('black all points 1000 5000 @2147483647');
    expect(decodeMatch(fields)).toEqual(solo);
    for (const value of Object.values(fields)) expect(value.length).toBeLessThanOrEqual(64);
  });

  it('keeps a fault and a draw', () => {
    const faulted: MatchRecord = {
      ...match,
      result: {
        winner: null,
        discs: { black: 2, white: 2 },
        reason: 'timeout',
        fault: {
          reason: 'timeout',
          cause: 'timeout',
          message: 'answered after 9 ms, over the 5 ms it had',
          latencyMs: 9,
        },
      } as MatchRecord['result'],
      ratings: null,
    };
    expect(decodeMatch(matchFields(faulted))).toEqual(faulted);
  });

  it('reads a record in the old form (JSON values)', () => {
    const old = {
      ...matchFields(match),
      black: JSON.stringify(match.black),
      white: JSON.stringify(match.white),
      rules: JSON.stringify(match.rules),
      result: JSON.stringify(match.result),
      ratings: JSON.stringify(match.ratings),
    };
    expect(decodeMatch(old)).toEqual(match);
  });

  it('makes a rating history entry from the match alone', () => {
    const entry = historyEntryOf(match, match.black.id);
    expect(entry).toEqual({
      matchId: match.id,
      at: match.finishedAt,
      opponent: match.white,
      before: 1562.7883491667567,
      after: 1555.8587345398437,
      score: 0,
    });
    expect(encodeHistoryEntry(entry!)).toBe(match.id);
    expect(historyEntryOf(match, 'bot_someone-else')).toBeNull();
  });

  it('makes the same entry from the few fields a history reads, in the new form and the old', () => {
    const fieldsOf = (hash: Record<string, string>) =>
      historyFieldsOf(HISTORY_FIELDS.map((f) => hash[f] ?? null));
    const old = {
      ...matchFields(match),
      black: JSON.stringify(match.black),
      white: JSON.stringify(match.white),
      result: JSON.stringify(match.result),
      ratings: JSON.stringify(match.ratings),
    };
    for (const hash of [matchFields(match), old])
      for (const botId of [match.black.id, match.white.id, 'bot_someone-else'])
        expect(historyEntryOf(fieldsOf(hash), botId)).toEqual(historyEntryOf(match, botId));
    const { ratings: _unrated, ...unrated } = matchFields(match);
    expect(historyEntryOf(fieldsOf(unrated), match.black.id)).toBeNull();
    expect(fieldsOf({})).toBeNull();
  });
});
