import { describe, expect, it } from 'vitest';
import { boardWith } from '../../test/reversi/boards.ts';
import { legalMoveMask, popcount } from './bitboard.ts';
import { flipMask } from './flips.ts';
import type { Position } from './position.ts';
import { maskSquares, type Square, squareIndex } from './squares.ts';

function movesFor(pos: Position): Square[] {
  const out = new Int32Array(2);
  legalMoveMask(pos.blackLo, pos.blackHi, pos.whiteLo, pos.whiteHi, out);
  return maskSquares(out[0]!, out[1]!);
}

function flipsFor(pos: Position, square: Square): Square[] {
  const out = new Int32Array(2);
  flipMask(pos.blackLo, pos.blackHi, pos.whiteLo, pos.whiteHi, squareIndex(square), out);
  return maskSquares(out[0]!, out[1]!);
}

describe('popcount', () => {
  const cases: { name: string; lo: number; hi: number; expected: number }[] = [
    { name: 'an empty board', lo: 0, hi: 0, expected: 0 },
    { name: 'a full board', lo: -1, hi: -1, expected: 64 },
    { name: 'bit 31 of each half', lo: 1 << 31, hi: 1 << 31, expected: 2 },
    { name: 'alternating bits', lo: 0x55555555, hi: 0x0f0f0f0f | 0, expected: 32 },
    { name: 'one bit in each byte', lo: 0x01010101, hi: 0x80808080 | 0, expected: 8 },
  ];
  it.each(cases)('counts $name', ({ lo, hi, expected }) => {
    expect(popcount(lo, hi)).toBe(expected);
  });
});

describe('legalMoveMask (black to move)', () => {
  const cases: { name: string; black: Square[]; white: Square[]; expected: Square[] }[] = [
    {
      name: 'finds the four moves of the start',
      black: ['d5', 'e4'],
      white: ['d4', 'e5'],
      expected: ['d3', 'c4', 'f5', 'e6'],
    },
    {
      name: 'follows a line across the two halves',
      black: ['d2'],
      white: ['d3', 'd4', 'd5', 'd6'],
      expected: ['d7'],
    },
    {
      name: 'follows a line upward across the halves',
      black: ['e8'],
      white: ['e7', 'e6', 'e5', 'e4'],
      expected: ['e3'],
    },
    {
      name: 'follows a diagonal across the halves',
      black: ['a1'],
      white: ['b2', 'c3', 'd4', 'e5', 'f6', 'g7'],
      expected: ['h8'],
    },
    {
      name: 'follows an anti-diagonal across the halves',
      black: ['h1'],
      white: ['g2', 'f3', 'e4', 'd5', 'c6', 'b7'],
      expected: ['a8'],
    },
    { name: 'does not wrap from file h to file a', black: ['g4'], white: ['h4'], expected: [] },
    { name: 'does not wrap from file a to file h', black: ['b5'], white: ['a5'], expected: [] },
    { name: 'does not wrap diagonally', black: ['g3'], white: ['h4'], expected: [] },
    { name: 'ends a line at a gap', black: ['a1'], white: ['b1', 'd1'], expected: ['c1'] },
  ];
  it.each(cases)('$name', ({ black, white, expected }) => {
    expect(movesFor(boardWith(black, white))).toEqual(expected);
  });
});

describe('flipMask (black to move)', () => {
  it('flips a line that crosses the two halves', () => {
    expect(flipsFor(boardWith(['d2'], ['d3', 'd4', 'd5', 'd6']), 'd7')).toEqual(
      ['d6', 'd5', 'd4', 'd3'].reverse(),
    );
  });
  it('flips lines that end on bit 31 of a half', () => {
    // h4 is bit 31 of the low half, h8 bit 31 of the high half.
    expect(flipsFor(boardWith(['h4', 'h8'], ['h5', 'h6', 'g7']), 'h7')).toEqual(['h5', 'h6']);
    expect(flipsFor(boardWith(['h8'], ['g7']), 'f6')).toEqual(['g7']);
  });
  it('flips every trapped line around a corner placement', () => {
    expect(flipsFor(boardWith(['c1', 'a3', 'c3'], ['b1', 'a2', 'b2']), 'a1')).toEqual(['b1', 'a2', 'b2']);
  });
  it('flips nothing when no line is closed', () => {
    expect(flipsFor(boardWith([], ['b1', 'a2', 'b2']), 'a1')).toEqual([]);
  });
});
