/**
 * Each entrant's tally, and the tie-breaks that order equal points: Sonneborn–Berger for a round
 * robin or a gauntlet, Buchholz for a Swiss tournament.
 */

import { type Results, scoreOf, type TournamentGame } from './types.ts';

export interface Tally {
  /** wins + draws / 2 + byes. */
  readonly points: number;
  /** Games played: wins + draws + losses (a bye is no game). */
  readonly games: number;
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  readonly byes: number;
}

/**
 * Every entrant's tally from `results`; an entrant with no games has all zeros. Bots that are not
 * entrants are not tallied (the callers check the results first).
 *
 * @example
 * tallies(['a', 'b'], { games: [{ white: 'a', black: 'b', result: 'draw' }] }).get('a');
 * // { points: 0.5, games: 1, wins: 0, draws: 1, losses: 0, byes: 0 }
 */
export function tallies(entrants: readonly string[], results: Results): Map<string, Tally> {
  const counts = new Map(
    entrants.map((id) => [id, { points: 0, games: 0, wins: 0, draws: 0, losses: 0, byes: 0 }]),
  );
  for (const game of results.games) {
    for (const id of [game.white, game.black]) {
      const tally = counts.get(id);
      if (tally === undefined) continue;
      const score = scoreOf(game, id);
      tally.games += 1;
      tally.points += score!;
      if (score === 1) tally.wins += 1;
      else if (score === 0.5) tally.draws += 1;
      else tally.losses += 1;
    }
  }
  for (const id of results.byes ?? []) {
    const tally = counts.get(id);
    if (tally === undefined) continue;
    tally.byes += 1;
    tally.points += 1;
  }
  return counts;
}

/**
 * Sonneborn–Berger: for each game, the bot's score in it times the opponent's final points; a
 * win over a strong bot counts for more than one over a weak bot. Summed per game, so in a double
 * round robin each meeting counts twice.
 *
 * @example
 * // a beat b; b beat c; c drew a: a has 1.5 and SB 1·1 (b) + ½·0.5 (c) = 1.25
 */
export function sonnebornBerger(
  games: readonly TournamentGame[],
  points: ReadonlyMap<string, number>,
): Map<string, number> {
  return opponentSums(games, points, (game, id) => scoreOf(game, id)!);
}

/**
 * Buchholz: the sum of the final points of every opponent, once per game played against it.
 *
 * Byes: a bye has no opponent, so it adds nothing to its receiver's Buchholz (FIDE's "virtual
 * opponent" is left out: simpler, and in an odd field every bot but one gets at most one bye,
 * never a second while another has none). The bye's point does count in the receiver's own points,
 * and so in the Buchholz of everyone who played it.
 *
 * @example
 * // a beat b; b drew c; c had a bye: a has b's 0.5 = 0.5, b has a's 1 + c's 1.5 = 2.5
 */
export function buchholz(
  games: readonly TournamentGame[],
  points: ReadonlyMap<string, number>,
): Map<string, number> {
  return opponentSums(games, points, () => 1);
}

/**
 * For each bot in `points`, the sum over its games of `weight(game, bot)` times the opponent's
 * final points: the shape both tie-breaks share.
 */
function opponentSums(
  games: readonly TournamentGame[],
  points: ReadonlyMap<string, number>,
  weight: (game: TournamentGame, id: string) => number,
): Map<string, number> {
  const sums = new Map<string, number>([...points.keys()].map((id) => [id, 0]));
  for (const game of games) {
    for (const [id, opponent] of [
      [game.white, game.black],
      [game.black, game.white],
    ] as const) {
      if (!sums.has(id)) continue;
      sums.set(id, sums.get(id)! + weight(game, id) * (points.get(opponent) ?? 0));
    }
  }
  return sums;
}
