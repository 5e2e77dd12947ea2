/**
 * The table of a tournament: points, the tie-break of its format, and ranks.
 */

import { buchholz, sonnebornBerger, type Tally, tallies } from './tiebreaks.ts';
import { type Results, requireEntrants, requireKnownBots, type TournamentFormat } from './types.ts';

export interface Standing extends Tally {
  /** From 1; shared by bots equal on points and tie-break (1, 2, 2, 4). */
  readonly rank: number;
  readonly botId: string;
  /** Sonneborn–Berger for a round robin or a gauntlet, Buchholz for Swiss. */
  readonly tiebreak: number;
}

/** Which tie-break a format orders equal points by. */
export function tiebreakOf(format: TournamentFormat): 'sonneborn-berger' | 'buchholz' {
  return format === 'swiss' ? 'buchholz' : 'sonneborn-berger';
}

/**
 * The standings of `entrants` after `results`: win 1, draw ½, loss 0, a Swiss bye 1.
 *
 * Sorted by points, then tie-break (both higher first), then bot id. Bots equal on points and
 * tie-break share a rank, and the next rank skips (1, 2, 2, 4): the tie-break could not tell them
 * apart, so the table should not pretend to; the id only fixes the order they are listed in.
 * Entrants without games are listed with zeros.
 *
 * Throws a RangeError for a game or bye naming a non-entrant, and for byes outside Swiss (a round
 * robin's sit-out scores nothing, so it is no bye here).
 *
 * @example
 * standings('round-robin', ['a', 'b'], { games: [{ white: 'a', black: 'b', result: 'white' }] })[0];
 * // { rank: 1, botId: 'a', points: 1, games: 1, wins: 1, draws: 0, losses: 0, byes: 0, tiebreak: 0 }
 */
export function standings(
  format: TournamentFormat,
  entrants: readonly string[],
  results: Results,
): Standing[] {
  requireEntrants(entrants, 1);
  requireKnownBots(entrants, results);
  if (format !== 'swiss' && (results.byes ?? []).length > 0) {
    throw new RangeError(`a ${format} scores no byes; leave its sit-outs out of the results`);
  }
  const tally = tallies(entrants, results);
  const points = new Map([...tally].map(([id, t]) => [id, t.points]));
  const breaks =
    tiebreakOf(format) === 'buchholz'
      ? buchholz(results.games, points)
      : sonnebornBerger(results.games, points);

  const rows = entrants.map((botId) => ({ botId, ...tally.get(botId)!, tiebreak: breaks.get(botId)! }));
  rows.sort(
    (a, b) =>
      b.points - a.points || b.tiebreak - a.tiebreak || (a.botId < b.botId ? -1 : a.botId > b.botId ? 1 : 0),
  );
  // Points and tie-breaks are sums of halves and quarters of small numbers: exact in binary, so === is safe.
  const ranked: Standing[] = [];
  rows.forEach((row, k) => {
    const above = ranked[k - 1];
    const tied = above !== undefined && above.points === row.points && above.tiebreak === row.tiebreak;
    ranked.push({ rank: tied ? above.rank : k + 1, ...row });
  });
  return ranked;
}
