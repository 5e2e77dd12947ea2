/**
 * The pure core of tournaments: schedules (round robin, gauntlet), Swiss pairing round by round,
 * standings with tie-breaks, the crosstable and strengths. No I/O: a service stores the entrants,
 * the rounds and the results, and asks these functions what follows from them.
 */

export type { ColourRule } from './colours.ts';
export { type CrossGame, type Crosstable, crosstable } from './crosstable.ts';
export { scheduleGauntlet, scheduleRoundRobin } from './schedule.ts';
export { type Standing, standings, tiebreakOf } from './standings.ts';
export { ratedGame, tournamentStrengths } from './strength.ts';
export { pairSwissRound, type SwissRound } from './swiss.ts';
export { buchholz, sonnebornBerger, type Tally, tallies } from './tiebreaks.ts';
export {
  type GameResult,
  type GamesPerPairing,
  type Pairing,
  type Results,
  type Round,
  type Score,
  type Side,
  scoreOf,
  type TournamentFormat,
  type TournamentGame,
} from './types.ts';
