/**
 * Logistic Elo, pure: no I/O, no clock. The workers apply it when a rated match finishes.
 */

export interface EloParams {
  /** K while a bot has played fewer than `provisionalGames` rated games. */
  readonly kProvisional: number;
  readonly k: number;
  readonly provisionalGames: number;
}

/**
 * The score A is expected to make against B: `1 / (1 + 10^((Rb - Ra) / 400))`.
 *
 * @example
 * expectedScore(1500, 1500) // 0.5
 */
export function expectedScore(ratingA: number, ratingB: number): number {
  return 1 / (1 + 10 ** ((ratingB - ratingA) / 400));
}

/** K for a bot that has played `ratedGames` rated games so far. */
export function kFactor(ratedGames: number, params: EloParams): number {
  return ratedGames < params.provisionalGames ? params.kProvisional : params.k;
}

/**
 * Both ratings after one game: `R' = R + K (S - E)`, where A scores `scoreA` (1 win, 0.5 draw,
 * 0 loss) and B the rest. Each side uses its own K, so the changes cancel only while the Ks match.
 *
 * @example
 * eloUpdate(1500, 1500, 1, 32, 32) // { a: 1516, b: 1484 }
 */
export function eloUpdate(
  ratingA: number,
  ratingB: number,
  scoreA: 0 | 0.5 | 1,
  kA: number,
  kB: number,
): { a: number; b: number } {
  const expectedA = expectedScore(ratingA, ratingB);
  return {
    a: ratingA + kA * (scoreA - expectedA),
    b: ratingB + kB * (1 - scoreA - (1 - expectedA)),
  };
}
