/**
 * Balanced openings: short lines of real tournament play after which the recorded games came out about
 * even, so that a match can start from one of them instead of the bare start position. The lines are
 * chosen by scripts/gen-openings.ts from the WTHOR archive and shipped in `openings-data.json`; this
 * module only reads them, maps them onto the rules being played and replays them, with no I/O.
 *
 * It also holds the board's 8 symmetries and `canonicalKey`, which the generator uses to keep one line
 * per position up to symmetry and the tests use to check that it did.
 */

import { RulesError } from './errors.ts';
import { play } from './game.ts';
import data from './openings-data.json' with { type: 'json' };
import type { RulesOptions } from './options.ts';
import { initialPosition, type Position, positionFromBoards } from './position.ts';
import { type Square, squareIndex, squareName } from './squares.ts';

/** An opening line and how the recorded games that went through its position ended. */
export interface Opening {
  /** `o-` and 8 hex digits of a hash of the canonical position (stable across regenerations), or `standard`. */
  readonly id: string;
  /** Tournament notation: black moves first from the standard start; no passes. Empty for `standard`. */
  readonly moves: readonly Square[];
  /** Recorded games whose first plies reached this position (or one of its symmetric images). */
  readonly games: number;
  /**
   * The first player's mean game points in those games (win 1, draw ½, loss 0). The first player is
   * black in the archive and white once the line is mapped to white-first rules, so it reads the same
   * under both.
   */
  readonly meanScore: number;
  /** The first player's mean final disc differential (recorded scores, empties to the winner). */
  readonly meanDiff: number;
  /** Standard deviation of that differential: how decided the games usually were. */
  readonly spread: number;
}

/**
 * Symmetry `s` (0..7) of the board as a map on square indices: bit 2 transposes (files become ranks),
 * then bit 0 mirrors the files and bit 1 mirrors the ranks. Together they are the 8 symmetries of the
 * square; `0` is the identity and `2` is the rank mirror (d4 <-> d5, e4 <-> e5).
 *
 * @example
 * squareName(transformSquare(squareIndex('f5'), 2)); // 'f4'
 */
export function transformSquare(index: number, symmetry: number): number {
  let file = index & 7;
  let rank = index >> 3;
  if ((symmetry & 4) !== 0) [file, rank] = [rank, file];
  if ((symmetry & 1) !== 0) file = 7 - file;
  if ((symmetry & 2) !== 0) rank = 7 - rank;
  return rank * 8 + file;
}

/** The half-board bit of square `index`, 0 or 1. */
function bitAt(lo: number, hi: number, index: number): number {
  return ((index < 32 ? lo : hi) >>> (index & 31)) & 1;
}

/**
 * The image of `pos` under symmetry `symmetry` (see `transformSquare`): every disc moved, colours and
 * side to move unchanged.
 *
 * @example
 * transformPosition(initialPosition(), 4); // the start again: transposing fixes it
 */
export function transformPosition(pos: Position, symmetry: number): Position {
  const halves = [0, 0, 0, 0]; // black lo, black hi, white lo, white hi
  for (let index = 0; index < 64; index++) {
    const to = transformSquare(index, symmetry);
    const slot = to >> 5;
    if (bitAt(pos.blackLo, pos.blackHi, index)) halves[slot]! |= 1 << (to & 31);
    if (bitAt(pos.whiteLo, pos.whiteHi, index)) halves[2 + slot]! |= 1 << (to & 31);
  }
  return positionFromBoards(halves[0]!, halves[1]!, halves[2]!, halves[3]!, pos.toMove);
}

/** The one-line OBF form: a1, b1, ..., h8 as `X` black, `O` white, `-` empty, a space, the side to move. */
function obfLine(pos: Position): string {
  let board = '';
  for (let index = 0; index < 64; index++) {
    if (bitAt(pos.blackLo, pos.blackHi, index)) board += 'X';
    else board += bitAt(pos.whiteLo, pos.whiteHi, index) ? 'O' : '-';
  }
  return `${board} ${pos.toMove === 'black' ? 'X' : 'O'}`;
}

/**
 * A key equal for two positions exactly when one is an image of the other under the board's 8
 * symmetries with the same side to move: the least of the 8 images' OBF lines. Colours are not swapped,
 * because a colour swap changes who is ahead and so is a different opening.
 *
 * @example
 * canonicalKey(pos) === canonicalKey(transformPosition(pos, 5)); // true for every position
 */
export function canonicalKey(pos: Position): string {
  let least = obfLine(pos);
  for (let symmetry = 1; symmetry < 8; symmetry++) {
    const line = obfLine(transformPosition(pos, symmetry));
    if (line < least) least = line;
  }
  return least;
}

/** The generated file's shape; the annotation makes `tsc` fail if the file drifts from it. */
interface OpeningsFile {
  readonly standard: Omit<Opening, 'id' | 'moves'>;
  readonly openings: readonly Opening[];
}
const FILE: OpeningsFile = data;

/** How the archived games went from the bare start: the `standard` opening, no moves. */
export const STANDARD_OPENING: Opening = Object.freeze({
  ...FILE.standard,
  id: 'standard',
  moves: Object.freeze([]),
});

const SHIPPED: readonly Opening[] = Object.freeze(
  FILE.openings.map((o) => Object.freeze({ ...o, moves: Object.freeze([...o.moves]) })),
);
const BY_ID = new Map(SHIPPED.map((o) => [o.id, o]));

/**
 * The shipped balanced openings, most played first. `standard` is not among them; see `openingById`.
 *
 * @example
 * openings()[0]!.moves; // ['f5', 'd6', 'c3', ...], black first
 */
export function openings(): readonly Opening[] {
  return SHIPPED;
}

/**
 * The opening called `id`: a shipped one, `STANDARD_OPENING` for `'standard'`, `undefined` otherwise.
 *
 * @example
 * openingById('standard')?.moves; // []
 */
export function openingById(id: string): Opening | undefined {
  return id === STANDARD_OPENING.id ? STANDARD_OPENING : BY_ID.get(id);
}

/**
 * The opening's moves to play from `initialPosition(rules)`. Under black-first rules they are the
 * recorded moves. Under white-first rules (the arena's default) the start has the same discs but the
 * other colour moves, so each square is mirrored across the ranks (d4 <-> d5, e4 <-> e5): the rank
 * mirror with the colours swapped maps the black-first start onto the white-first one, so the mirrored
 * line is legal and leads to the recorded position mirrored with colours (and side to move) swapped.
 *
 * @example
 * openingMoves({ ...opening, moves: ['f5', 'd6'] }, DEFAULT_RULES); // ['f4', 'd3']
 */
export function openingMoves(opening: Opening, rules: RulesOptions): Square[] {
  if (rules.firstPlayer === 'black') return [...opening.moves];
  return opening.moves.map((square) => squareName(transformSquare(squareIndex(square), 2)));
}

/**
 * The position after playing the opening from the start under `rules`. Throws a `RulesError`: the
 * `play` error of a move that is not legal (never for a shipped opening), or `reversi/invalid-rules`
 * under single-direction capture, where the recorded lines, which flipped every trapped line, do not
 * exist (`standard` is fine under any rules).
 *
 * @example
 * openingPosition(openingById('standard')!, DEFAULT_RULES); // initialPosition(DEFAULT_RULES)
 */
export function openingPosition(opening: Opening, rules: RulesOptions): Position {
  let pos = initialPosition(rules);
  if (opening.moves.length > 0 && rules.captureRule !== 'all') {
    throw new RulesError('reversi/invalid-rules', `opening ${opening.id} needs captureRule 'all'`);
  }
  for (const square of openingMoves(opening, rules)) {
    const result = play(pos, { square }, rules);
    if (!result.ok) throw result.error;
    pos = result.position;
  }
  return pos;
}
