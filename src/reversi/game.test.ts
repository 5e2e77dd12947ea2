import { describe, expect, it } from 'vitest';
import { boardWith } from '../../test/reversi/boards.ts';
import { RULES_ERROR_CODES, type RulesErrorCode } from './errors.ts';
import { isGameOver, legalMoves, type Move, mustPass, outcome, play } from './game.ts';
import { DEFAULT_RULES, type RulesOptions, rulesOptions } from './options.ts';
import { boardText, discCounts, initialPosition, type Position, positionFromBoardText } from './position.ts';

const FULL_BLACK_TOP = [...Array(4).fill('BBBBBBBB'), ...Array(4).fill('WWWWWWWW')];

describe('the default rules', () => {
  it('start with white to move from white d4, e5 and black d5, e4', () => {
    const start = initialPosition();
    expect(start.toMove).toBe('white');
    expect(boardText(start)).toEqual([
      '........',
      '........',
      '........',
      '...WB...',
      '...BW...',
      '........',
      '........',
      '........',
    ]);
  });

  it('give white exactly e3, f4, c5 and d6 at the start', () => {
    expect(legalMoves(initialPosition())).toEqual(['e3', 'f4', 'c5', 'd6']);
  });

  it('let black move first under tournament Othello', () => {
    const start = initialPosition(rulesOptions({ firstPlayer: 'black' }));
    expect(start.toMove).toBe('black');
    expect(legalMoves(start)).toEqual(['d3', 'c4', 'f5', 'e6']);
  });
});

describe('passing', () => {
  // Black's only disc b1 is next to white's corner a1: black traps nothing, white can play c1.
  const blocked = boardWith(['b1'], ['a1'], 'black');

  it('is forced when the mover has no placement and the opponent has one', () => {
    expect(legalMoves(blocked)).toEqual([]);
    expect(mustPass(blocked)).toBe(true);
    expect(isGameOver(blocked)).toBe(false);
  });

  it('hands the turn over and changes no disc', () => {
    const result = play(blocked, { square: 'pass' }, DEFAULT_RULES);
    expect(result.ok && result.flips).toEqual([]);
    expect(result.ok && result.position).toEqual(boardWith(['b1'], ['a1'], 'white'));
    expect(result.ok && legalMoves(result.position)).toEqual(['c1']);
  });

  it('is not allowed while a placement exists', () => {
    const result = play(initialPosition(), { square: 'pass' }, DEFAULT_RULES);
    expect(result.ok ? 'ok' : result.error.code).toBe('reversi/pass-not-allowed');
    expect(mustPass(initialPosition())).toBe(false);
  });
});

describe('the end of the game', () => {
  const cases: { name: string; pos: Position }[] = [
    { name: 'the board is full', pos: positionFromBoardText(FULL_BLACK_TOP, 'white') },
    { name: 'one colour has no disc left', pos: boardWith(['d4', 'e4', 'd5'], [], 'white') },
    { name: 'empty squares remain but neither side can trap', pos: boardWith(['a1', 'b1'], ['h8'], 'black') },
  ];
  describe.each(cases)('when $name', ({ pos }) => {
    it('is reached: no moves, no pass', () => {
      expect(isGameOver(pos)).toBe(true);
      expect(mustPass(pos)).toBe(false);
      expect(legalMoves(pos)).toEqual([]);
    });
    it('rejects every move with reversi/game-over', () => {
      for (const move of [{ square: 'pass' }, { square: 'h1' }, { square: 'z0' }]) {
        const result = play(pos, move, DEFAULT_RULES);
        expect(result.ok ? 'ok' : result.error.code).toBe('reversi/game-over');
      }
    });
  });
});

describe('scoring', () => {
  const discs = DEFAULT_RULES;
  const tournament = rulesOptions({ scoring: 'empties-to-winner' });
  const cases: { name: string; pos: Position; rules: RulesOptions; expected: ReturnType<typeof outcome> }[] =
    [
      {
        name: 'a full board split 32-32 by discs',
        pos: positionFromBoardText(FULL_BLACK_TOP, 'black'),
        rules: discs,
        expected: { winner: null, discs: { black: 32, white: 32 } },
      },
      {
        name: 'a win with empties, by discs',
        pos: boardWith(['a1', 'b1', 'c1'], ['h8']),
        rules: discs,
        expected: { winner: 'black', discs: { black: 3, white: 1 } },
      },
      {
        name: 'a win with empties, empties to the winner',
        pos: boardWith(['a1'], ['g8', 'h8']),
        rules: tournament,
        expected: { winner: 'white', discs: { black: 1, white: 63 } },
      },
      {
        name: 'a draw with empties, empties split',
        pos: boardWith(['a1'], ['h8']),
        rules: tournament,
        expected: { winner: null, discs: { black: 32, white: 32 } },
      },
    ];
  it.each(cases)('scores $name', ({ pos, rules, expected }) => {
    expect(isGameOver(pos)).toBe(true);
    expect(outcome(pos, rules)).toEqual(expected);
  });

  it('counts discs and empty squares', () => {
    expect(discCounts(boardWith(['a1', 'b1', 'c1'], ['h8']))).toEqual({ black: 3, white: 1, empty: 60 });
  });
});

describe('rejected moves', () => {
  const single = rulesOptions({ captureRule: 'single-direction' });
  const twoLines = boardWith(['d3', 'f5', 'h8'], ['d4', 'e5', 'g8']);
  const cases: { code: RulesErrorCode; name: string; pos: Position; move: unknown; rules?: RulesOptions }[] =
    [
      {
        code: 'reversi/malformed-square',
        name: 'an off-board name',
        pos: initialPosition(),
        move: { square: 'i9' },
      },
      {
        code: 'reversi/malformed-square',
        name: 'an upper-case name',
        pos: initialPosition(),
        move: { square: 'E3' },
      },
      {
        code: 'reversi/malformed-square',
        name: 'an empty name',
        pos: initialPosition(),
        move: { square: '' },
      },
      {
        code: 'reversi/malformed-square',
        name: 'a non-string',
        pos: initialPosition(),
        move: { square: 19 },
      },
      { code: 'reversi/malformed-square', name: 'no move object', pos: initialPosition(), move: null },
      {
        code: 'reversi/occupied-square',
        name: 'an occupied square',
        pos: initialPosition(),
        move: { square: 'd4' },
      },
      {
        code: 'reversi/illegal-move',
        name: 'a square trapping nothing',
        pos: initialPosition(),
        move: { square: 'a1' },
      },
      {
        code: 'reversi/pass-not-allowed',
        name: 'a needless pass',
        pos: initialPosition(),
        move: { square: 'pass' },
      },
      {
        code: 'reversi/direction-required',
        name: 'two trapped lines and no direction',
        pos: twoLines,
        move: { square: 'd5' },
        rules: single,
      },
      {
        code: 'reversi/invalid-direction',
        name: 'a direction trapping nothing',
        pos: twoLines,
        move: { square: 'd5', direction: 'nw' },
        rules: single,
      },
      {
        code: 'reversi/game-over',
        name: 'a move after the end',
        pos: positionFromBoardText(FULL_BLACK_TOP, 'black'),
        move: { square: 'pass' },
      },
    ];

  describe.each(cases)('when the move is $name', ({ code, pos, move, rules }) => {
    it(`fails with ${code} and changes nothing`, () => {
      const boardBefore = boardText(pos);
      const moveBefore = structuredClone(move);
      const result = play(pos, move as Move, rules ?? DEFAULT_RULES);
      expect(result.ok ? 'ok' : result.error.code).toBe(code);
      expect(boardText(pos)).toEqual(boardBefore);
      expect(move).toEqual(moveBefore);
      expect(Object.isFrozen(pos)).toBe(true);
    });
  });

  it('cover every code that play can return', () => {
    const parserOnly: RulesErrorCode[] = ['reversi/malformed-board', 'reversi/invalid-rules'];
    const covered = new Set(cases.map((c) => c.code));
    expect(RULES_ERROR_CODES.filter((c) => !parserOnly.includes(c) && !covered.has(c))).toEqual([]);
  });

  it('leave the position unchanged after a legal move too', () => {
    const start = initialPosition();
    const result = play(start, { square: 'e3' }, DEFAULT_RULES);
    expect(result.ok && result.flips).toEqual(['e4']);
    expect(start).toEqual(initialPosition());
  });
});
