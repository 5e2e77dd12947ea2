import { describe, expect, it } from 'vitest';
import { parseGgf } from '../../test/support/ggf-parse.ts';
import type { MatchRecord, MatchResult, MoveRecord } from '../model/records.ts';
import { escapeGgf, formatGgf, ggfUnsupported } from './ggf.ts';

const STARTED = Date.UTC(2025, 0, 31, 12, 0, 0);
const START_BOARD = `${'-'.repeat(27)}O*${'-'.repeat(6)}*O${'-'.repeat(27)}`;

function match(overrides: Partial<MatchRecord> = {}): MatchRecord {
  return {
    id: 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D',
    game: 'reversi',
    black: { id: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH', name: 'alpha' },
    white: { id: 'bot_01JC3S0T7XK1S3V9D9A7B2E6RM', name: 'beta' },
    rules: { firstPlayer: 'white', captureRule: 'all', scoring: 'discs', timeLimitMs: 1000, overageMs: 5000 },
    rated: false,
    status: 'finished',
    createdBy: 'admin',
    createdAt: STARTED - 1000,
    startedAt: STARTED,
    finishedAt: STARTED + 60_000,
    moveCount: 0,
    result: null,
    ratings: null,
    ...overrides,
  };
}

const move = (ply: number, player: 'black' | 'white', square: string, latencyMs = 12): MoveRecord => ({
  ply,
  player,
  square,
  flips: [],
  latencyMs,
});

const completed = (black: number, white: number): MatchResult => ({
  winner: black > white ? 'black' : white > black ? 'white' : null,
  discs: { black, white },
  reason: 'completed',
});

describe('formatGgf', () => {
  it('writes a white-first match as GGS does, white (O) to move in the start position', () => {
    const moves = [move(1, 'white', 'e3', 12), move(2, 'black', 'f4', 350), move(3, 'white', 'pass', 0)];
    expect(formatGgf(match({ result: completed(40, 24) }), moves)).toBe(
      '(;GM[Othello]PC[reversi-arena]DT[2025.01.31_12:00:00.UTC]PB[alpha]PW[beta]TI[00:05/00:01/]TY[8]' +
        'RE[+16.000]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- O]' +
        'W[e3//0.012]B[f4//0.350]W[PA];)',
    );
  });

  it('gives a black-first match black (*) to move, on the same start position', () => {
    const rules = { ...match().rules, firstPlayer: 'black' as const };
    const game = parseGgf(formatGgf(match({ rules }), [move(1, 'black', 'd3')]));
    expect(game.board).toBe(START_BOARD);
    expect(game.toMove).toBe('black');
    expect(game.moves).toEqual([{ color: 'black', square: 'd3', seconds: 0.012 }]);
  });

  it('reads back with every ply in order, passes as PA', () => {
    const moves = [move(1, 'white', 'e3'), move(2, 'black', 'pass', 0), move(3, 'white', 'f4', 1234)];
    const game = parseGgf(formatGgf(match(), moves));
    expect(game.properties.get('W')).toEqual(['e3//0.012', 'f4//1.234']);
    expect(game.properties.get('B')).toEqual(['PA']);
    expect(game.moves.map((m) => `${m.color} ${m.square}`)).toEqual(['white e3', 'black pass', 'white f4']);
  });

  it('escapes "\\" and "]" in names, so a name cannot end its property or start another', () => {
    expect(escapeGgf('a]b\\c')).toBe('a\\]b\\\\c');
    const sly = match({ black: { id: 'bot_1', name: 'x]RE[+64' }, white: { id: 'bot_2', name: 'back\\' } });
    const text = formatGgf(sly, []);
    expect(text).toContain('PB[x\\]RE[+64]PW[back\\\\]');
    const game = parseGgf(text);
    expect([game.black, game.white, game.result]).toEqual(['x]RE[+64', 'back\\', null]);
  });

  describe('the result, from black view', () => {
    const cases: { name: string; result: MatchResult | null; re: string | undefined }[] = [
      { name: 'a black win is positive', result: completed(40, 24), re: '+16.000' },
      { name: 'a white win is negative', result: completed(13, 51), re: '-38.000' },
      { name: 'a draw is 0.000', result: completed(32, 32), re: '0.000' },
      {
        name: "a win on the other side's timeout is the whole board, flagged t",
        result: {
          winner: 'black',
          discs: { black: 10, white: 20 },
          reason: 'timeout',
          fault: { player: 'white', reason: 'timeout', message: 'late' },
        },
        re: '+64.000:t',
      },
      {
        name: 'a win by any other fault reads as a resignation, flagged r',
        result: {
          winner: 'white',
          discs: { black: 30, white: 6 },
          reason: 'illegal-move',
          fault: { player: 'black', reason: 'illegal-move', message: 'a1 is not legal' },
        },
        re: '-64.000:r',
      },
      {
        name: 'a no-show has none',
        result: {
          winner: null,
          discs: { black: 2, white: 2 },
          reason: 'no-show',
          fault: { player: 'white', reason: 'bot-error', message: 'refused' },
        },
        re: undefined,
      },
      {
        name: 'an aborted match has none',
        result: { winner: null, discs: { black: 2, white: 2 }, reason: 'aborted' },
        re: undefined,
      },
      { name: 'a running match has none', result: null, re: undefined },
    ];
    it.each(cases)('$name', ({ result, re }) => {
      const game = parseGgf(formatGgf(match({ result }), []));
      expect(game.properties.get('RE')?.[0]).toBe(re);
    });
  });

  it('writes ratings before a rated match, and none for an unrated one', () => {
    const ratings = { black: { before: 1512.345, after: 1520 }, white: { before: 1490, after: 1482 } };
    const rated = parseGgf(formatGgf(match({ rated: true, ratings }), []));
    expect([rated.properties.get('RB'), rated.properties.get('RW')]).toEqual([['1512.35'], ['1490.00']]);
    const unrated = parseGgf(formatGgf(match(), []));
    expect(unrated.properties.has('RB')).toBe(false);
  });

  it('dates a queued match by its creation and writes sub-second and hour-long clocks', () => {
    const rules = { ...match().rules, timeLimitMs: 250, overageMs: 3_723_000 };
    const game = parseGgf(formatGgf(match({ status: 'queued', startedAt: null, rules }), []));
    expect(game.properties.get('DT')).toEqual(['2025.01.31_11:59:59.UTC']);
    expect(game.properties.get('TI')).toEqual(['1:02:03/00:00.25/']);
  });
});

describe('ggfUnsupported', () => {
  it('names single-direction capture, which GGF cannot say, and formatGgf refuses it', () => {
    const single = match({ rules: { ...match().rules, captureRule: 'single-direction' } });
    expect(ggfUnsupported(single)).toMatch(/single-direction/);
    expect(() => formatGgf(single, [])).toThrow(/single-direction/);
  });

  it('names a game other than Othello', () => {
    expect(ggfUnsupported(match({ game: 'tictactoe' }))).toMatch(/tictactoe/);
  });

  it('accepts a standard match, and one recorded before game ids', () => {
    expect(ggfUnsupported(match())).toBeNull();
    expect(ggfUnsupported(match({ game: undefined }))).toBeNull();
  });
});
