import { type EloParams, eloUpdate, kFactor } from '../rating/elo.ts';
import type { RatingRule } from './records.ts';

/** The store's rating rule from the pure Elo math: each bot moves by its own K. */
export function eloRule(params: EloParams): RatingRule {
  return (black, white, blackScore) => {
    const next = eloUpdate(
      black.rating,
      white.rating,
      blackScore,
      kFactor(black.ratedGames, params),
      kFactor(white.ratedGames, params),
    );
    return { black: next.a, white: next.b };
  };
}
