import {
  legalSoloMoves,
  type SoloMove,
  type SoloScoring,
  type SoloState,
  soloEffect,
} from '../reversi/solo.ts';

/**
 * The house bots' play in the solo game (docs/solo.md), so that a solo league is never empty: a
 * random placement, and a greedy one. Pure, on the engine's state; null when no placement is left.
 */

/** Any legal placement, each as likely, by the injected `random` (in [0, 1)). */
export function chooseSoloRandom(state: SoloState, random: () => number): SoloMove | null {
  const moves = legalSoloMoves(state);
  if (moves.length === 0) return null;
  return moves[Math.min(moves.length - 1, Math.floor(random() * moves.length))]!;
}

/**
 * The placement that scores most now (tokens, or their values under `points`), then turns the most
 * tokens (what it learns), then flips the most discs; ties go to the first in a1..h8 order, black
 * before white, so the answer is deterministic.
 */
export function chooseSoloGreedy(state: SoloState, scoring: SoloScoring = 'tokens'): SoloMove | null {
  let best: { move: SoloMove; key: readonly number[] } | null = null;
  for (const move of legalSoloMoves(state)) {
    const effect = soloEffect(state, move);
    if (typeof effect === 'string') continue;
    const scored =
      scoring === 'tokens'
        ? effect.captures.length
        : effect.captures.reduce((sum, { token }) => sum + token.value, 0);
    const key = [scored, effect.turned.length, effect.flips.length];
    if (best === null || outranks(key, best.key)) best = { move, key };
  }
  return best?.move ?? null;
}

/** Whether `a` comes before `b` compared element by element, the larger first. */
function outranks(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! > b[i]!;
  }
  return false;
}
