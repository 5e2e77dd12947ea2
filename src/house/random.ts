import { type Action, type Turn, turnCandidates } from './turn.ts';

/** A source of numbers in [0, 1), like `Math.random`. */
export type Random = () => number;

/**
 * Picks uniformly among the turn's moves (each trapping direction counts as a move under
 * single-direction capture). Throws `NoMoveError` when there is none.
 *
 * @example
 * chooseRandom(state, seededRandom(42)); // { action: 'f4' }
 */
export function chooseRandom(state: Turn, random: Random): Action {
  const { moves } = turnCandidates(state);
  const index = Math.min(moves.length - 1, Math.floor(random() * moves.length));
  return moves[index]!.action;
}

export { seededRandom } from '../support/random.ts';
