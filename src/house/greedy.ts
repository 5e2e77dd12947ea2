import { type Action, type Turn, turnCandidates } from './turn.ts';

/**
 * Plays the move that flips the most discs right now. Ties go to the first such move in a1..h8 order
 * (then n, ne, …, nw under single-direction capture), so the answer is deterministic. Throws
 * `NoMoveError` when there is no move.
 *
 * @example
 * chooseGreedy(state); // { action: 'c4' }
 */
export function chooseGreedy(state: Turn): Action {
  const { moves } = turnCandidates(state);
  let best = moves[0]!;
  for (const move of moves) if (move.flips > best.flips) best = move;
  return best.action;
}
