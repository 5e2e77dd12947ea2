/**
 * The tokens of the solo game and where they lie at the start. The French rule sheet lists the 24
 * tokens (20 numbered 1 to 10 in two colours, 4 blank) but its layout diagram is missing from our
 * copy: the layout below is the arena's own, not the sheet's (docs/solo.md draws it).
 */

import { type Square, squareIndex } from './squares.ts';

/** A token's colour: black or white (the sheet's two colours), or blank. */
export type TokenColour = 'black' | 'white' | 'blank';

export interface Token {
  readonly colour: TokenColour;
  /** 1 to 10; 0 for a blank. */
  readonly value: number;
}

/**
 * The 24 squares tokens start on: six groups of four, each symmetric about both the board's middle
 * lines, none touching the four centre discs, so that the first moves flip discs and only later
 * reach the tokens.
 */
export const SOLO_TOKEN_SQUARES: readonly Square[] = Object.freeze([
  // the corners
  'a1',
  'h1',
  'a8',
  'h8',
  // the edges' third squares
  'c1',
  'f1',
  'c8',
  'f8',
  // the inner corners
  'b2',
  'g2',
  'b7',
  'g7',
  // facing the centre, two squares out
  'd2',
  'e2',
  'd7',
  'e7',
  'b4',
  'b5',
  'g4',
  'g5',
  // the centre's diagonal neighbours' diagonal
  'c3',
  'f3',
  'c6',
  'f6',
]);

/** The 24 tokens in the default layout's order: black and white alternate, 1 to 10, then the blanks. */
export const SOLO_TOKENS: readonly Token[] = Object.freeze([
  ...Array.from({ length: 10 }, (_, i) => [
    { colour: 'black', value: i + 1 } as const,
    { colour: 'white', value: i + 1 } as const,
  ]).flat(),
  ...Array.from({ length: 4 }, () => ({ colour: 'blank', value: 0 }) as const),
]);

/** The highest layout number: layouts are 0 (the default) and the seeds 1 to this. */
export const MAX_SOLO_LAYOUT = 2 ** 31 - 1;

/**
 * Layout `number`'s tokens by square index: layout 0 puts SOLO_TOKENS on SOLO_TOKEN_SQUARES in
 * order; any other number shuffles the same 24 tokens over the same squares, the same way every
 * time (a small xorshift generator seeded by the number; the rules engine takes no randomness from
 * outside).
 *
 * @example
 * soloLayout(0).get(squareIndex('a1')); // { colour: 'black', value: 1 }
 */
export function soloLayout(number: number): ReadonlyMap<number, Token> {
  if (!Number.isInteger(number) || number < 0 || number > MAX_SOLO_LAYOUT) {
    throw new RangeError(`a solo layout is a whole number from 0 to ${MAX_SOLO_LAYOUT}`);
  }
  const tokens = [...SOLO_TOKENS];
  if (number > 0) {
    let state = number ^ 0x9e3779b9 || 1;
    const next = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) / 4294967296;
    };
    for (let i = tokens.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [tokens[i], tokens[j]] = [tokens[j]!, tokens[i]!];
    }
  }
  return new Map(SOLO_TOKEN_SQUARES.map((square, i) => [squareIndex(square), tokens[i]!]));
}

/** How many bytes `shuffledSoloLayout` reads: two for each of the shuffle's 23 draws. */
export const SOLO_SHUFFLE_BYTES = 46;

/**
 * The 24 tokens shuffled over the same squares by `bytes` (at least `SOLO_SHUFFLE_BYTES`): a
 * Fisher–Yates shuffle whose every draw is two bytes, read big-endian, modulo the draw's range (a
 * bias below 1 in 2,700). The arena draws the bytes from a keyed hash of a layout's number, so the
 * tokens of a layout cannot be worked out from its number or from a few of them seen (a 31-bit
 * seed could be searched for); see docs/solo.md.
 *
 * @example
 * shuffledSoloLayout(new Uint8Array(46)).size; // 24
 */
export function shuffledSoloLayout(bytes: Uint8Array): ReadonlyMap<number, Token> {
  if (bytes.length < SOLO_SHUFFLE_BYTES) {
    throw new RangeError(`a solo shuffle reads ${SOLO_SHUFFLE_BYTES} bytes, not ${bytes.length}`);
  }
  const tokens = [...SOLO_TOKENS];
  for (let i = tokens.length - 1, at = 0; i > 0; i--, at += 2) {
    const j = ((bytes[at]! << 8) | bytes[at + 1]!) % (i + 1);
    [tokens[i], tokens[j]] = [tokens[j]!, tokens[i]!];
  }
  return new Map(SOLO_TOKEN_SQUARES.map((square, i) => [squareIndex(square), tokens[i]!]));
}
