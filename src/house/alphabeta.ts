import {
  type Color,
  discCounts,
  isGameOver,
  legalMoves,
  mustPass,
  opponent,
  outcome,
  type Position,
  play,
  positionFromBoards,
  type RulesOptions,
  squareIndex,
} from '../reversi/index.ts';
import { type Action, type Candidate, candidates, type Turn, turnCandidates } from './turn.ts';

/** The search depth `chooseAlphaBeta` uses when none is given. */
export const DEFAULT_DEPTH = 4;

const WIN = 100_000;
const CORNERS = ['a1', 'h1', 'a8', 'h8'].map(squareIndex);

function owns(position: Position, color: Color, index: number): boolean {
  const bit = 1 << (index & 31);
  const lo = color === 'black' ? position.blackLo : position.whiteLo;
  const hi = color === 'black' ? position.blackHi : position.whiteHi;
  return ((index < 32 ? lo : hi) & bit) !== 0;
}

function mobility(position: Position, color: Color): number {
  const { blackLo, blackHi, whiteLo, whiteHi } = position;
  return legalMoves(positionFromBoards(blackLo, blackHi, whiteLo, whiteHi, color)).length;
}

/**
 * A static score of `position` for `me`: disc difference, plus mobility (moves I have minus moves
 * the opponent has) and corners, which matter far more than discs until the end. A finished game
 * scores ±`WIN` plus the final margin under `rules.scoring`.
 *
 * @example
 * evaluate(initialPosition(), 'white', DEFAULT_RULES); // 0 (the start is symmetric)
 */
export function evaluate(position: Position, me: Color, rules: RulesOptions): number {
  const them = opponent(me);
  if (isGameOver(position)) {
    const { discs } = outcome(position, rules);
    const margin = discs[me] - discs[them];
    return margin === 0 ? 0 : Math.sign(margin) * WIN + margin;
  }
  const counts = discCounts(position);
  const discDiff = counts[me] - counts[them];
  const mobilityDiff = mobility(position, me) - mobility(position, them);
  let cornerDiff = 0;
  for (const corner of CORNERS) {
    if (owns(position, me, corner)) cornerDiff++;
    else if (owns(position, them, corner)) cornerDiff--;
  }
  return discDiff + 5 * mobilityDiff + 30 * cornerDiff;
}

/** Corners first: good moves early make the alpha-beta cut-offs come sooner. */
function ordered(moves: Candidate[]): Candidate[] {
  const corner = (move: Candidate) => (CORNERS.includes(squareIndex(move.action.action)) ? 0 : 1);
  return [...moves].sort((a, b) => corner(a) - corner(b));
}

/** Negamax with alpha-beta pruning: the score of `position` for the player to move. */
function search(position: Position, depth: number, alpha: number, beta: number, rules: RulesOptions): number {
  if (depth === 0 || isGameOver(position)) return evaluate(position, position.toMove, rules);
  if (mustPass(position)) {
    const passed = play(position, { square: 'pass' }, rules);
    return passed.ok ? -search(passed.position, depth - 1, -beta, -alpha, rules) : 0;
  }
  let best = -Infinity;
  for (const move of ordered(candidates(position, rules))) {
    const score = -search(move.position, depth - 1, -beta, -alpha, rules);
    if (score > best) best = score;
    if (score > alpha) alpha = score;
    if (alpha >= beta) break;
  }
  return best;
}

/**
 * Searches `depth` plies ahead with alpha-beta and plays the best move by `evaluate`. Deterministic:
 * equal scores go to the first move in corners-first, then a1..h8, order. Throws `NoMoveError` when
 * there is no move.
 *
 * @example
 * chooseAlphaBeta(state, 3); // { action: 'a1' } when a corner is there for the taking
 */
export function chooseAlphaBeta(state: Turn, depth: number = DEFAULT_DEPTH): Action {
  const { rules, moves } = turnCandidates(state);
  let best: Candidate = moves[0]!;
  let alpha = -Infinity;
  for (const move of ordered(moves)) {
    const score = -search(move.position, Math.max(0, depth - 1), -Infinity, -alpha, rules);
    if (score > alpha) {
      alpha = score;
      best = move;
    }
  }
  return best.action;
}
