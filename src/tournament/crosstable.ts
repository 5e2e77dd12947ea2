/**
 * The crosstable: every bot's games against every other, from the row bot's side, for a page.
 */

import { type Results, requireEntrants, requireKnownBots, type Score, type Side, scoreOf } from './types.ts';

/** One game as the row bot saw it. */
export interface CrossGame {
  /** The row bot's colour. */
  readonly side: Side;
  readonly score: Score;
}

export interface Crosstable {
  /** Rows and columns, in this order. */
  readonly botIds: readonly string[];
  /**
   * `cells[i][j]`: the games of `botIds[i]` against `botIds[j]`, in the order played, from i's
   * side; empty on the diagonal and for bots that have not met.
   */
  readonly cells: readonly (readonly (readonly CrossGame[])[])[];
}

/**
 * The crosstable of `entrants`, in their order: pass the standings' order
 * (`standings(…).map((s) => s.botId)`) for the usual table. Byes have no cell.
 *
 * @example
 * crosstable(['a', 'b'], { games: [{ white: 'a', black: 'b', result: 'white' }] }).cells;
 * // [[[], [{ side: 'white', score: 1 }]], [[{ side: 'black', score: 0 }], []]]
 */
export function crosstable(entrants: readonly string[], results: Results): Crosstable {
  requireEntrants(entrants, 1);
  requireKnownBots(entrants, results);
  const index = new Map(entrants.map((id, k) => [id, k]));
  const cells: CrossGame[][][] = entrants.map(() => entrants.map(() => []));
  for (const game of results.games) {
    const white = index.get(game.white)!;
    const black = index.get(game.black)!;
    cells[white]![black]!.push({ side: 'white', score: scoreOf(game, game.white)! });
    cells[black]![white]!.push({ side: 'black', score: scoreOf(game, game.black)! });
  }
  return { botIds: [...entrants], cells };
}
