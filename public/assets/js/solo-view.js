// The solo game as pages draw it (/play and a match's page): what each square holds, read from a solo
// state (its board's letters, its tokens' colours and values), drawn into a board cell's inner span and
// said in words; captured tokens as small tiles. No rules here: the arena's state says it all.
import { el } from './common.js';
import { squareName } from './replay.js';

const TURNED = { b: 'black', w: 'white', o: 'blank' };

/**
 * What `state` (a solo match's state) has on each square, a1 first: `{ kind: 'empty' }`,
 * `{ kind: 'disc', colour }`, `{ kind: 'token', hidden: true }` (face down) or
 * `{ kind: 'token', hidden: false, colour, value }` (turned: black, white or blank, worth 0 to 10).
 * @example soloSquares(state)[0] // { kind: 'token', hidden: true } on a1 at the start
 */
export function soloSquares(state) {
  const tokens = new Map((state.tokens ?? []).map((token) => [token.square, token]));
  return Array.from({ length: 64 }, (_, index) => {
    const mark = state.board[Math.floor(index / 8)]?.[index % 8] ?? '.';
    if (mark === 'B') return { kind: 'disc', colour: 'black' };
    if (mark === 'W') return { kind: 'disc', colour: 'white' };
    if (mark === '?') return { kind: 'token', hidden: true };
    if (mark in TURNED) {
      const token = tokens.get(squareName(index));
      return {
        kind: 'token',
        hidden: false,
        colour: token?.colour ?? TURNED[mark],
        value: token?.value ?? null,
      };
    }
    return { kind: 'empty' };
  });
}

/** Draws a square's content into its `.disc` span: a disc, a face-down token ("?"), a turned one's value. */
export function paintSquare(span, what) {
  if (what.kind === 'disc') {
    span.className = `disc ${what.colour}`;
    span.textContent = '';
  } else if (what.kind === 'token') {
    span.className = what.hidden ? 'disc token face-down' : `disc token ${what.colour}`;
    span.textContent = what.hidden ? '?' : String(what.value ?? '');
  } else {
    span.className = 'disc';
    span.textContent = '';
  }
}

/** A square in words: "c3, black token worth 4", "a1, face-down token", "d4, white disc", "b2, empty". */
export function describeSquare(square, what) {
  if (what.kind === 'disc') return `${square}, ${what.colour} disc`;
  if (what.kind === 'token') return `${square}, ${tokenWords(what)}`;
  return `${square}, empty`;
}

/** A token in words: "face-down token", "white token worth 8", "blank token worth 0". */
export function tokenWords(token) {
  if (token.hidden) return 'face-down token';
  return `${token.colour} token worth ${token.value ?? 'unknown'}`;
}

/** A token as a small tile showing its value, its colour in the tile's look and in words for a screen reader. */
export function tokenTile(token) {
  return el(
    'span',
    { class: 'tile-wrap' },
    el('span', { class: `tile ${token.colour}`, 'aria-hidden': 'true' }, String(token.value)),
    el('span', { class: 'visually-hidden' }, `${token.colour} ${token.value}`),
  );
}

/** What the score counts, in words. */
export const scoringText = (scoring) =>
  scoring === 'points' ? 'the values of the tokens captured' : 'one point a token captured';

/**
 * Each recorded move's `flips` split into the discs it turned over and the tokens it captured. The
 * record lists the flipped discs, then the captured tokens' squares; a disc never leaves the board, so
 * a square that held a disc before the move is a flip, any other a capture.
 * @example splitFlips(match.moves)[0] // { discs: ['d4'], captures: [] }
 */
export function splitFlips(moves) {
  const discs = new Set(['d4', 'e5', 'd5', 'e4']);
  return moves.map((move) => {
    const split = { discs: [], captures: [] };
    if (move.square === 'pass') return split;
    for (const square of move.flips) (discs.has(square) ? split.discs : split.captures).push(square);
    discs.add(move.square);
    return split;
  });
}

/** "1 disc", "3 discs": a count and its noun. */
export const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;
