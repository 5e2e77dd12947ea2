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

/**
 * A small seeded generator (mulberry32) for reproducible games in tests and simulations.
 *
 * @example
 * const random = seededRandom(1);
 * random(); // always the same first number for seed 1
 */
export function seededRandom(seed: number): Random {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
