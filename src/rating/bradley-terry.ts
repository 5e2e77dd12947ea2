/**
 * Bradley–Terry ratings by maximum likelihood over all rated results at once, as computer-chess
 * rating lists do (BayesElo, Ordo). Shown beside the incremental Elo of ./elo.ts: it does not
 * depend on the order games were played in, and it comes with confidence intervals.
 *
 * Pure: no I/O, no clock, no randomness (the intervals are analytic: see `bradleyTerryFromTallies`).
 *
 * Model: bot i has strength π_i > 0 and scores against j with probability π_i / (π_i + π_j). A draw
 * counts as half a win for each side. In Elo points, rating_i = 400·log10(π_i) + shift.
 */

import { ELO_PER_NEPER, fitLogStrengths, meanOf, startingLogStrengths } from './bt-fit.ts';
import { centredVariances } from './bt-intervals.ts';
import { connectedGroups, requireFiniteMle, type Table, tabulate, withPrior } from './bt-tallies.ts';

/** One rated game; `score` is Black's: 1 win, 0.5 draw, 0 loss. */
export interface RatedGame {
  readonly black: string;
  readonly white: string;
  readonly score: 0 | 0.5 | 1;
}

/** The results between two bots: `games` played, of which `a` made `scoreA` points (wins + draws/2). */
export interface PairTally {
  readonly a: string;
  readonly b: string;
  readonly games: number;
  readonly scoreA: number;
}

export interface BradleyTerryOptions {
  /** Mean rating of the rated bots (use the mean of their current Elo ratings). Default 1500. */
  readonly anchorMean?: number;
  /**
   * Virtual draws per bot, a weak prior that keeps perfect records finite; each bot's are shared
   * among the opponents it met, in proportion to the games. Default 1; 0 gives the plain
   * maximum-likelihood estimate.
   */
  readonly priorDraws?: number;
  /** Stop when no rating moves by more than this many Elo points in an iteration. Default 1e-6. */
  readonly tolerance?: number;
  /**
   * Give up after this many iterations (the fit then reports `converged: false`); one iteration is
   * one accelerated cycle of three or more MM steps. Default 10 000.
   */
  readonly maxIterations?: number;
  /**
   * Ratings (Elo points, any anchor) to start the iteration from, by bot id: the last fit's, so a
   * refit after a few more results climbs less far (about half the iterations on a 200-bot ladder
   * with 2% more games; a handful when nothing changed). Only the work changes: the maximum is
   * unique, so the result is the same within `tolerance`'s reach. Bots left out start at their
   * group's mean; values that are not finite are ignored.
   */
  readonly start?: ReadonlyMap<string, number>;
}

export interface BradleyTerryRating {
  readonly id: string;
  /** Elo points. */
  readonly rating: number;
  /** Bounds of the 95% confidence interval, rating ∓ 1.96 standard errors. */
  readonly lower: number;
  readonly upper: number;
  /** Rated games played (virtual prior games not counted). */
  readonly games: number;
}

export interface BradleyTerryFit {
  /** Strongest first; ties by id. */
  readonly ratings: readonly BradleyTerryRating[];
  readonly iterations: number;
  readonly converged: boolean;
}

const Z_95 = 1.959963984540054;

/**
 * Bradley–Terry ratings from a list of games; the games are first summed into pairwise tallies,
 * so the cost grows with the number of distinct pairings, not of games. See
 * `bradleyTerryFromTallies` for the method and the edge cases.
 *
 * @example
 * const games = [
 *   { black: 'a', white: 'b', score: 1 },
 *   { black: 'b', white: 'a', score: 0.5 },
 * ] as const;
 * bradleyTerry(games, { anchorMean: 1500 }).ratings.map((r) => r.id) // ['a', 'b']
 */
export function bradleyTerry(games: Iterable<RatedGame>, options: BradleyTerryOptions = {}): BradleyTerryFit {
  return rate(
    tabulate((visit) => {
      for (const g of games) visit(g.black, g.white, 1, g.score);
    }),
    options,
  );
}

/**
 * Bradley–Terry ratings from pairwise tallies (repeated or reversed pairs are summed).
 *
 * Fit: Hunter's (2004) minorization–maximization, π_i ← W_i / Σ_j n_ij / (π_i + π_j), where W_i is
 * i's score and n_ij the games between i and j, accelerated by SQUAREM; each step raises the
 * likelihood, and it converges to the unique maximum whenever that exists.
 *
 * Edge cases:
 * - A bot with no games is not in the input, so it is left out of the result (show it unrated).
 * - Prior: with `priorDraws` d > 0 each bot adds d virtual draws, shared among its opponents in
 *   proportion to the games it played against each (pair i–j gets d/2·(n_ij/N_i + n_ij/N_j)).
 *   Every estimate is then finite, even for a bot that won or lost everything, and with many
 *   games the prior fades. We do not draw against one virtual average opponent instead: it pulls
 *   a bot 1000 points above the average hard towards it, and in a simulated 300-bot ladder paired
 *   by rating it shrank the whole scale by a third.
 * - With `priorDraws: 0` a finite maximum exists only if, inside each connected group of bots,
 *   every split into two sides has someone on each side who scored against the other (Hunter's
 *   Assumption 1). Otherwise this throws a RangeError naming a bot, rather than returning ratings
 *   that are only an artefact of where the iteration stopped.
 * - Disconnected groups (bots that never met, even through others) cannot be compared. Each
 *   connected group is fitted on its own and shifted so that its mean is `anchorMean`; the overall
 *   mean is then `anchorMean` too.
 * - A bot paired with itself is rejected with a RangeError: such a game says nothing.
 * - If the iteration stops at `maxIterations`, the fit reports `converged: false`.
 *
 * Confidence intervals come from the observed Fisher information (the negative Hessian of the
 * log-likelihood, virtual draws included, in log-strengths θ_i = ln π_i), not from a bootstrap:
 * one matrix inversion instead of hundreds of refits, no random source, and exact in the
 * large-sample limit that rating lists live in. Ratings are only defined up to a common shift,
 * which the group mean fixes, so the standard error reported is that of θ_i − mean(θ): the
 * Hessian is singular along the all-ones direction, and its Moore–Penrose pseudo-inverse is
 * exactly the covariance under that mean-zero constraint. Caveats: these are Wald intervals, too
 * narrow after a handful of games; and since a draw counts as half a win, the model allows each
 * game more variance than a drawish pairing really has, so with many draws they err wide.
 *
 * @example
 * const fit = bradleyTerryFromTallies(
 *   [
 *     { a: 'A', b: 'B', games: 30, scoreA: 22.5 },
 *     { a: 'B', b: 'C', games: 30, scoreA: 22.5 },
 *     { a: 'A', b: 'C', games: 30, scoreA: 27 },
 *   ],
 *   { priorDraws: 0, anchorMean: 0 },
 * );
 * fit.ratings.map((r) => Math.round(r.rating)) // [191, 0, -191]
 */
export function bradleyTerryFromTallies(
  tallies: Iterable<PairTally>,
  options: BradleyTerryOptions = {},
): BradleyTerryFit {
  return rate(
    tabulate((visit) => {
      for (const t of tallies) visit(t.a, t.b, t.games, t.scoreA);
    }),
    options,
  );
}

/**
 * Pairwise tallies as columns: row r says `ids[a[r]]` made `scoreA[r]` points in `games[r]` games
 * against `ids[b[r]]`. Typed arrays, so a fit in a worker thread receives them without a copy.
 */
export interface TallyColumns {
  readonly ids: readonly string[];
  readonly a: Int32Array;
  readonly b: Int32Array;
  readonly games: Float64Array;
  readonly scoreA: Float64Array;
}

/**
 * `bradleyTerryFromTallies` over tallies in columns (repeated or reversed rows are summed).
 *
 * @example
 * const columns = { ids: ['a', 'b'], a: Int32Array.of(0), b: Int32Array.of(1), games: Float64Array.of(2), scoreA: Float64Array.of(1.5) };
 * bradleyTerryFromColumns(columns).ratings[0]?.id // 'a'
 */
export function bradleyTerryFromColumns(
  columns: TallyColumns,
  options: BradleyTerryOptions = {},
): BradleyTerryFit {
  const { ids, a, b, games, scoreA } = columns;
  return rate(
    tabulate((visit) => {
      for (let r = 0; r < a.length; r++) visit(ids[a[r]!]!, ids[b[r]!]!, games[r]!, scoreA[r]!);
    }),
    options,
  );
}

function rate(table: Table, options: BradleyTerryOptions): BradleyTerryFit {
  const { anchorMean = 1500, priorDraws = 1, tolerance = 1e-6, maxIterations = 10_000, start } = options;
  if (!Number.isFinite(anchorMean)) throw new RangeError(`anchorMean must be finite, got ${anchorMean}`);
  if (!(priorDraws >= 0 && Number.isFinite(priorDraws))) {
    throw new RangeError(`priorDraws must be a finite number >= 0, got ${priorDraws}`);
  }
  if (!(tolerance > 0)) throw new RangeError(`tolerance must be > 0, got ${tolerance}`);
  if (!(Number.isInteger(maxIterations) && maxIterations >= 1)) {
    throw new RangeError(`maxIterations must be an integer >= 1, got ${maxIterations}`);
  }
  if (table.ids.length === 0) return { ratings: [], iterations: 0, converged: true };

  const groups = connectedGroups(table);
  if (priorDraws === 0) requireFiniteMle(table, groups);
  const model = { table: withPrior(table, priorDraws), groups, strength: new Float64Array(table.ids.length) };
  const { theta, iterations, converged } = fitLogStrengths(
    model,
    tolerance,
    maxIterations,
    start && startingLogStrengths(table.ids, groups, start),
  );
  const variance = centredVariances(model, theta);

  const ratings: BradleyTerryRating[] = [];
  for (const group of groups) {
    const meanLog = meanOf(theta, group);
    for (const i of group) {
      const rating = anchorMean + ELO_PER_NEPER * (theta[i]! - meanLog);
      const halfWidth = Z_95 * ELO_PER_NEPER * Math.sqrt(Math.max(0, variance[i]!));
      const id = table.ids[i]!;
      ratings.push({
        id,
        rating,
        lower: rating - halfWidth,
        upper: rating + halfWidth,
        games: table.games[i]!,
      });
    }
  }
  ratings.sort((x, y) => y.rating - x.rating || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return { ratings, iterations, converged };
}
