import { describe, expect, it } from 'vitest';
import { DIRECTIONS, directionIndex, maskSquares, squareIndex, squareName } from './squares.ts';

describe('square names', () => {
  it.each([
    ['a1', 0],
    ['h1', 7],
    ['a2', 8],
    ['d3', 19],
    ['h4', 31],
    ['a5', 32],
    ['h8', 63],
  ])('maps %s to bit %i and back', (name, index) => {
    expect(squareIndex(name)).toBe(index);
    expect(squareName(index)).toBe(name);
  });

  it.each(['', 'a', 'a0', 'a9', 'i1', 'A1', 'a10', ' a1', 'pass'])('rejects %j', (name) => {
    expect(squareIndex(name)).toBe(-1);
  });

  it('rejects non-strings', () => {
    expect(squareIndex(undefined)).toBe(-1);
    expect(squareIndex(3)).toBe(-1);
  });

  it('lists the set bits of both halves in a1..h8 order', () => {
    expect(maskSquares((1 << 31) | 1, (1 << 31) | 1)).toEqual(['a1', 'h4', 'a5', 'h8']);
  });

  it('reads a half given unsigned (0x80000000) as the same 32 bits', () => {
    expect(maskSquares(0x80000001, 0x80000000)).toEqual(['a1', 'h4', 'h8']);
    expect(maskSquares(0xffffffff, 0)).toHaveLength(32);
  });
});

describe('directions', () => {
  it('are the 8 compass points, clockwise from north', () => {
    expect(DIRECTIONS).toEqual(['n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw']);
    expect(directionIndex('sw')).toBe(5);
    expect(directionIndex('north')).toBe(-1);
    expect(directionIndex(null)).toBe(-1);
  });
});
