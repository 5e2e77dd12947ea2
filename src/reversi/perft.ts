/**
 * Perft: the number of move sequences of a given length, the standard check of a move generator.
 *
 * Convention (OEIS A124004, Edax): a forced pass is a ply and the position after it a node; a finished
 * game has no children, so it counts only at the depth where it is reached. The recursion runs on
 * plain numbers with results passed through preallocated `Int32Array`s, so it allocates nothing, and
 * it counts the last ply in bulk (a popcount of the move mask) instead of playing it.
 */

import { legalMoveMask, popcount } from './bitboard.ts';
import { flipMask } from './flips.ts';
import type { Position } from './position.ts';

const MOVES = new Int32Array(2);
const FLIPS = new Int32Array(2);

/**
 * Perft on raw bitboards: `p*` are the discs of the player to move, `o*` the opponent's.
 *
 * @example
 * perftBoards(1 << 27, 1 << 4, 1 << 28, 1 << 3, 3); // 56 (the start, white to move)
 */
export function perftBoards(pl: number, ph: number, ol: number, oh: number, depth: number): number {
  if (depth <= 0) return 1;
  legalMoveMask(pl, ph, ol, oh, MOVES);
  let ml = MOVES[0]!;
  let mh = MOVES[1]!;
  if ((ml | mh) === 0) {
    legalMoveMask(ol, oh, pl, ph, MOVES);
    if ((MOVES[0]! | MOVES[1]!) === 0) return 0;
    return perftBoards(ol, oh, pl, ph, depth - 1);
  }
  if (depth === 1) return popcount(ml, mh);
  if (depth === 2) return perftLastTwo(pl, ph, ol, oh, ml, mh);
  let nodes = 0;
  while (ml !== 0) {
    const b = ml & -ml;
    ml ^= b;
    flipMask(pl, ph, ol, oh, 31 - Math.clz32(b), FLIPS);
    const fl = FLIPS[0]!;
    const fh = FLIPS[1]!;
    nodes += perftBoards(ol ^ fl, oh ^ fh, pl | fl | b, ph | fh, depth - 1);
  }
  while (mh !== 0) {
    const b = mh & -mh;
    mh ^= b;
    flipMask(pl, ph, ol, oh, 63 - Math.clz32(b), FLIPS);
    const fl = FLIPS[0]!;
    const fh = FLIPS[1]!;
    nodes += perftBoards(ol ^ fl, oh ^ fh, pl | fl, ph | fh | b, depth - 1);
  }
  return nodes;
}

/** Leaf count of the child after a move: its move count, 1 for a forced pass, 0 for a finished game. */
function childLeaves(pl: number, ph: number, ol: number, oh: number): number {
  legalMoveMask(pl, ph, ol, oh, MOVES);
  const ml = MOVES[0]!;
  const mh = MOVES[1]!;
  if ((ml | mh) !== 0) return popcount(ml, mh);
  legalMoveMask(ol, oh, pl, ph, MOVES);
  return (MOVES[0]! | MOVES[1]!) !== 0 ? 1 : 0;
}

/** The two last plies, where nearly all the time goes: one loop with no recursion. */
function perftLastTwo(pl: number, ph: number, ol: number, oh: number, ml: number, mh: number): number {
  let nodes = 0;
  while (ml !== 0) {
    const b = ml & -ml;
    ml ^= b;
    flipMask(pl, ph, ol, oh, 31 - Math.clz32(b), FLIPS);
    const fl = FLIPS[0]!;
    const fh = FLIPS[1]!;
    nodes += childLeaves(ol ^ fl, oh ^ fh, pl | fl | b, ph | fh);
  }
  while (mh !== 0) {
    const b = mh & -mh;
    mh ^= b;
    flipMask(pl, ph, ol, oh, 63 - Math.clz32(b), FLIPS);
    const fl = FLIPS[0]!;
    const fh = FLIPS[1]!;
    nodes += childLeaves(ol ^ fl, oh ^ fh, pl | fl, ph | fh | b);
  }
  return nodes;
}

/**
 * The number of leaf nodes `depth` plies below `pos` (see the module comment for the convention).
 * Throws a `RangeError` unless `depth` is a non-negative integer.
 *
 * @example
 * perft(initialPosition(), 4); // 244
 */
export function perft(pos: Position, depth: number): number {
  if (!Number.isInteger(depth) || depth < 0)
    throw new RangeError(`perft depth must be an integer >= 0: ${depth}`);
  return pos.toMove === 'black'
    ? perftBoards(pos.blackLo, pos.blackHi, pos.whiteLo, pos.whiteHi, depth)
    : perftBoards(pos.whiteLo, pos.whiteHi, pos.blackLo, pos.blackHi, depth);
}
