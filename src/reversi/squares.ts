/**
 * Square and direction names, and their mapping to bit numbers.
 *
 * Files a-h run left to right, ranks 1-8 top to bottom, and bit `rank * 8 + file` (a1 = 0, h8 = 63) is
 * the square in both halves of a bitboard. Directions are compass points on the board as printed:
 * north is toward rank 1.
 */

import { popcount } from './bitboard.ts';

/** A square name, `a1`..`h8`. Kept a plain string so that wire types can carry it as-is. */
export type Square = string;

/** Every direction, in the order `trappingDirections` reports them; `n` points toward rank 1, `e` toward file h. */
export const DIRECTIONS = Object.freeze(['n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw'] as const);

/** A compass direction on the printed board. */
export type Direction = (typeof DIRECTIONS)[number];

/** `[file step, rank step]` for each entry of `DIRECTIONS`. */
export const DIRECTION_STEPS: readonly (readonly [number, number])[] = Object.freeze([
  [0, -1],
  [1, -1],
  [1, 0],
  [1, 1],
  [0, 1],
  [-1, 1],
  [-1, 0],
  [-1, -1],
]);

const FILES = 'abcdefgh';

function spellSquare(index: number): Square {
  return `${FILES[index & 7]}${(index >> 3) + 1}`;
}

// Names are looked up per move for every legal square and every flip; one shared string per square
// saves building a fresh one each time.
const SQUARE_NAMES: readonly Square[] = Array.from({ length: 64 }, (_, index) => spellSquare(index));

/**
 * The bit number (0..63) of a square name, or -1 if the name is not one of `a1`..`h8`. Only lower
 * case is accepted: the wire format has one spelling per square.
 *
 * @example
 * squareIndex('d3'); // 19
 * squareIndex('i9'); // -1
 */
export function squareIndex(name: unknown): number {
  if (typeof name !== 'string' || name.length !== 2) return -1;
  const file = name.charCodeAt(0) - 97;
  const rank = name.charCodeAt(1) - 49;
  if (file < 0 || file > 7 || rank < 0 || rank > 7) return -1;
  return rank * 8 + file;
}

/**
 * The name of bit number `index` (0..63).
 *
 * @example
 * squareName(19); // 'd3'
 */
export function squareName(index: number): Square {
  // Outside 0..63 the table has no entry; spelling it keeps the old answer for such input.
  return SQUARE_NAMES[index] ?? spellSquare(index);
}

/**
 * The index of a direction name in `DIRECTIONS`, or -1 if it is not one.
 *
 * @example
 * directionIndex('se'); // 3
 */
export function directionIndex(name: unknown): number {
  return typeof name === 'string' ? DIRECTIONS.indexOf(name as Direction) : -1;
}

/**
 * The square names of the set bits of a board, in bit order (a1, b1, ..., h8).
 *
 * @example
 * maskSquares(1 << 19, 0); // ['d3']
 */
export function maskSquares(lo: number, hi: number): Square[] {
  // Sized up front: growing by push reserves 16 slots, about twice the memory a move list needs. The
  // halves are made int32 first so that the count and the loops see the same bits.
  const low = lo | 0;
  const high = hi | 0;
  const squares: Square[] = new Array(popcount(low, high));
  let at = 0;
  for (let bits = low; bits !== 0; bits &= bits - 1)
    squares[at++] = SQUARE_NAMES[31 - Math.clz32(bits & -bits)]!;
  for (let bits = high; bits !== 0; bits &= bits - 1)
    squares[at++] = SQUARE_NAMES[63 - Math.clz32(bits & -bits)]!;
  return squares;
}
