/**
 * The solo game of the French rule sheet, pure: one player places discs of either colour on a board
 * that also holds 24 face-down tokens, turning tokens over by touching them and capturing turned
 * tokens by trapping them. Where the sheet is silent the arena decides; each decision is marked
 * "Ours:" below and listed in docs/solo.md and on /protocol.
 */

import { soloLayout, type Token, type TokenColour } from './solo-layouts.ts';
import { DIRECTION_STEPS, type Square, squareIndex, squareName } from './squares.ts';

export type DiscColour = 'black' | 'white';

/** A square of the solo board. */
export type SoloCell =
  | { readonly kind: 'empty' }
  | { readonly kind: 'disc'; readonly colour: DiscColour }
  | { readonly kind: 'token'; readonly token: Token; readonly turned: boolean };

export interface SoloState {
  /** By square index (a1 = 0, h8 = 63; ranks top to bottom, as the two-player board). */
  readonly cells: readonly SoloCell[];
  /** The tokens captured so far, in the order they were. */
  readonly captured: readonly Token[];
}

/** A placement: the square and the colour of the disc placed there. */
export interface SoloMove {
  readonly square: Square;
  readonly colour: DiscColour;
}

/** What a placement does. */
export interface SoloEffect {
  /** The discs it flips (ordinary trapping of the other colour's discs). */
  readonly flips: readonly Square[];
  /** The tokens it turns face up (orthogonal neighbours of the placed and flipped discs). */
  readonly turned: readonly Square[];
  /** The tokens it captures, with what they were. */
  readonly captures: readonly { readonly square: Square; readonly token: Token }[];
}

export type SoloPlayed =
  | { readonly ok: true; readonly state: SoloState; readonly effect: SoloEffect }
  | { readonly ok: false; readonly message: string };

/** `tokens`: each captured token counts 1 (the sheet's rule); `points`: their values add up. */
export type SoloScoring = 'tokens' | 'points';

const EMPTY: SoloCell = Object.freeze({ kind: 'empty' });
const DISC: Readonly<Record<DiscColour, SoloCell>> = Object.freeze({
  black: Object.freeze({ kind: 'disc', colour: 'black' }),
  white: Object.freeze({ kind: 'disc', colour: 'white' }),
});
/** The orthogonal steps, `[file, rank]`: "touching by a side, never diagonally". */
const SIDES: readonly (readonly [number, number])[] = [
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0],
];

const step = (index: number, [df, dr]: readonly [number, number]): number => {
  const file = (index & 7) + df;
  const rank = (index >> 3) + dr;
  return file < 0 || file > 7 || rank < 0 || rank > 7 ? -1 : rank * 8 + file;
};

/**
 * The start: the arena's four centre discs (d4 and e5 white, d5 and e4 black) and the tokens of
 * layout `layout` (or the tokens given, by square index), all face down.
 */
export function soloStart(layout: number | ReadonlyMap<number, Token> = 0): SoloState {
  const tokens = typeof layout === 'number' ? soloLayout(layout) : layout;
  const cells: SoloCell[] = Array.from({ length: 64 }, (_, i) => {
    const token = tokens.get(i);
    return token ? { kind: 'token', token, turned: false } : EMPTY;
  });
  for (const square of ['d4', 'e5']) cells[squareIndex(square)] = DISC.white;
  for (const square of ['d5', 'e4']) cells[squareIndex(square)] = DISC.black;
  return { cells, captured: [] };
}

/** The discs of the other colour a disc of `colour` at `at` traps, in every direction. */
function flipsOf(cells: readonly SoloCell[], at: number, colour: DiscColour): number[] {
  const flips: number[] = [];
  for (const direction of DIRECTION_STEPS) {
    const line: number[] = [];
    let next = step(at, direction);
    while (next >= 0) {
      const cell = cells[next]!;
      if (cell.kind !== 'disc') break;
      if (cell.colour === colour) {
        flips.push(...line);
        break;
      }
      line.push(next);
      next = step(next, direction);
    }
  }
  return flips;
}

/**
 * What placing `move` does, or why it cannot: the square must be empty (no disc, no token). Ours:
 * the move's flipped discs touch as the placed one does, so they turn tokens too; a token is
 * captured when it was turned before this move (one the move turns shows itself, and waits for a
 * later one), is not of the placed colour (a blank is of neither), and lies between two discs of the
 * placed colour that touch it by a side (left and right, or above and below), one of them placed or
 * flipped by this move.
 */
export function soloEffect(state: SoloState, move: SoloMove): SoloEffect | string {
  const at = squareIndex(move.square);
  if (at < 0) return `${String(move.square)} is not a square (a1 to h8)`;
  if (move.colour !== 'black' && move.colour !== 'white') return 'the colour must be black or white';
  const cell = state.cells[at]!;
  if (cell.kind !== 'empty') {
    return `${move.square} holds ${cell.kind === 'disc' ? 'a disc' : 'a token'}: a disc goes on an empty square`;
  }
  const cells = [...state.cells];
  cells[at] = DISC[move.colour];
  const flips = flipsOf(cells, at, move.colour).sort((a, b) => a - b);
  for (const index of flips) cells[index] = DISC[move.colour];
  const changed = [at, ...flips];
  const turned = new Set<number>();
  for (const index of changed) {
    for (const side of SIDES) {
      const next = step(index, side);
      const neighbour = next < 0 ? null : cells[next]!;
      if (neighbour?.kind === 'token' && !neighbour.turned) turned.add(next);
    }
  }
  for (const index of turned) {
    const token = (cells[index] as Extract<SoloCell, { kind: 'token' }>).token;
    cells[index] = { kind: 'token', token, turned: true };
  }
  const moved = new Set(changed);
  const captures: { square: Square; token: Token }[] = [];
  for (let index = 0; index < 64; index++) {
    const cell = cells[index]!;
    if (cell.kind !== 'token' || turned.has(index) || !cell.turned || cell.token.colour === move.colour) {
      continue;
    }
    const trapped = [
      [SIDES[1]!, SIDES[3]!],
      [SIDES[0]!, SIDES[2]!],
    ].some(([one, two]) => {
      const a = step(index, one!);
      const b = step(index, two!);
      const ours = (i: number) =>
        i >= 0 && cells[i]!.kind === 'disc' && (cells[i] as { colour: string }).colour === move.colour;
      return ours(a) && ours(b) && (moved.has(a) || moved.has(b));
    });
    if (trapped) captures.push({ square: squareName(index), token: cell.token });
  }
  return {
    flips: flips.map(squareName),
    turned: [...turned].sort((a, b) => a - b).map(squareName),
    captures,
  };
}

/**
 * Plays `move`. It must flip at least one disc or capture at least one token (the sheet: "each
 * placement must aim to capture"; ours: turning tokens alone is not enough). A captured token
 * leaves its square empty.
 */
export function playSolo(state: SoloState, move: SoloMove): SoloPlayed {
  const effect = soloEffect(state, move);
  if (typeof effect === 'string') return { ok: false, message: effect };
  if (effect.flips.length === 0 && effect.captures.length === 0) {
    return {
      ok: false,
      message: `a ${move.colour} disc on ${move.square} flips no disc and captures no token`,
    };
  }
  const cells = [...state.cells];
  cells[squareIndex(move.square)] = DISC[move.colour];
  for (const square of effect.flips) cells[squareIndex(square)] = DISC[move.colour];
  for (const square of effect.turned) {
    const index = squareIndex(square);
    const token = (cells[index] as Extract<SoloCell, { kind: 'token' }>).token;
    cells[index] = { kind: 'token', token, turned: true };
  }
  for (const { square } of effect.captures) cells[squareIndex(square)] = EMPTY;
  return {
    ok: true,
    state: { cells, captured: [...state.captured, ...effect.captures.map((c) => c.token)] },
    effect,
  };
}

/**
 * The legal placements of each state seen, worked out once: a turn asks for them several times (is
 * the game over, the legal squares, the coloured actions a bot is shown), and each time is 128 trial
 * placements. States are immutable values, so the weak map changes no answer.
 */
const placements = new WeakMap<SoloState, readonly SoloMove[]>();

/** Every legal placement, square by square (a1 first), black before white on a square. */
export function legalSoloMoves(state: SoloState): readonly SoloMove[] {
  let found = placements.get(state);
  if (found === undefined) {
    found = Object.freeze(placementsOf(state));
    placements.set(state, found);
  }
  return found;
}

function placementsOf(state: SoloState): SoloMove[] {
  const moves: SoloMove[] = [];
  for (let index = 0; index < 64; index++) {
    if (state.cells[index]!.kind !== 'empty') continue;
    for (const colour of ['black', 'white'] as const) {
      const effect = soloEffect(state, { square: squareName(index), colour });
      if (typeof effect !== 'string' && (effect.flips.length > 0 || effect.captures.length > 0)) {
        moves.push({ square: squareName(index), colour });
      }
    }
  }
  return moves;
}

/** Tokens still on the board. */
export function tokensLeft(state: SoloState): number {
  return state.cells.filter((cell) => cell.kind === 'token').length;
}

/**
 * The end: every token captured, or no legal placement left. Ours: "no token can be captured any
 * more" is read as "no placement is left", which every game reaches (each placement fills an empty
 * square and only the 24 captures empty one again).
 */
export function isSoloOver(state: SoloState): boolean {
  return tokensLeft(state) === 0 || legalSoloMoves(state).length === 0;
}

/** The score: tokens captured, or the sum of their values (a blank is worth 0). */
export function soloScore(state: SoloState, scoring: SoloScoring): number {
  return scoring === 'tokens'
    ? state.captured.length
    : state.captured.reduce((sum, token) => sum + token.value, 0);
}

/** A token as the player may see it: its square, and its colour and value only once turned. */
export type SeenToken =
  | { readonly square: Square; readonly hidden: true }
  | { readonly square: Square; readonly hidden: false; readonly colour: TokenColour; readonly value: number };

/** The tokens on the board as the player sees them: hidden ones carry nothing but their square. */
export function seenTokens(state: SoloState): SeenToken[] {
  const seen: SeenToken[] = [];
  state.cells.forEach((cell, index) => {
    if (cell.kind !== 'token') return;
    const square = squareName(index);
    seen.push(
      cell.turned
        ? { square, hidden: false, colour: cell.token.colour, value: cell.token.value }
        : { square, hidden: true },
    );
  });
  return seen;
}

/**
 * The board as rows of text, rank 1 first: `B`/`W` discs, `.` empty, `?` a hidden token, `b`/`w`/`o`
 * a turned black, white or blank token. What a bot is shown as `board`.
 */
export function soloBoardRows(state: SoloState): string[] {
  const letter = (cell: SoloCell): string => {
    if (cell.kind === 'empty') return '.';
    if (cell.kind === 'disc') return cell.colour === 'black' ? 'B' : 'W';
    if (!cell.turned) return '?';
    return cell.token.colour === 'black' ? 'b' : cell.token.colour === 'white' ? 'w' : 'o';
  };
  return Array.from({ length: 8 }, (_, rank) =>
    state.cells
      .slice(rank * 8, rank * 8 + 8)
      .map(letter)
      .join(''),
  );
}
