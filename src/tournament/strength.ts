/**
 * How strong the entrants are, judged from this tournament's games alone: Bradley–Terry ratings
 * with confidence intervals (src/rating does the fitting).
 */

import {
  type BradleyTerryFit,
  type BradleyTerryOptions,
  bradleyTerry,
  type RatedGame,
} from '../rating/bradley-terry.ts';
import { type Results, requireEntrants, requireKnownBots, type TournamentGame } from './types.ts';

/** A tournament game as the rating fit takes it: the score is Black's. */
export function ratedGame(game: TournamentGame): RatedGame {
  const score = game.result === 'black' ? 1 : game.result === 'draw' ? 0.5 : 0;
  return { black: game.black, white: game.white, score };
}

/**
 * Bradley–Terry ratings of `entrants` from the games of `results` played to the end (byes and
 * forfeits say nothing of strength and are ignored, as the arena's own fit ignores forfeits), strongest first, each with its 95% interval. The defaults are src/rating's: mean 1500
 * and one virtual draw per bot, so a bot that won or lost everything still gets a finite rating.
 * An entrant without games is left out of the fit (show it unrated). A tournament is small, so the
 * intervals are wide and, being Wald intervals, still too narrow after only a few games each.
 *
 * @example
 * tournamentStrengths(['a', 'b'], { games: [{ white: 'a', black: 'b', result: 'white' }] }).ratings[0]?.id; // 'a'
 */
export function tournamentStrengths(
  entrants: readonly string[],
  results: Results,
  options: BradleyTerryOptions = {},
): BradleyTerryFit {
  requireEntrants(entrants, 1);
  requireKnownBots(entrants, results);
  return bradleyTerry(results.games.filter((game) => !game.forfeit).map(ratedGame), options);
}
