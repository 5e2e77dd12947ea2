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

const ELO_PER_NEPER = 400 / Math.LN10;
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

function rate(table: Table, options: BradleyTerryOptions): BradleyTerryFit {
  const { anchorMean = 1500, priorDraws = 1, tolerance = 1e-6, maxIterations = 10_000 } = options;
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
  const { theta, iterations, converged } = fitLogStrengths(model, tolerance, maxIterations);
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

/** Pairings summed into flat arrays; bots are indexed in id order so the input order cannot matter. */
interface Table {
  readonly ids: readonly string[];
  /** Per bot: total score W_i and games played. */
  readonly score: Float64Array;
  readonly games: Float64Array;
  /** Per pairing p: bots lo[p] < hi[p], games n[p], and lo's score. */
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  readonly n: Float64Array;
  readonly loScore: Float64Array;
}

type Visit = (a: string, b: string, games: number, scoreA: number) => void;

function tabulate(forEachResult: (visit: Visit) => void): Table {
  // First pass: index bots in order of appearance and keep the rows as numbers.
  const firstSeen = new Map<string, number>();
  const indexOf = (id: string) => {
    let i = firstSeen.get(id);
    if (i === undefined) {
      i = firstSeen.size;
      firstSeen.set(id, i);
    }
    return i;
  };
  const rowA: number[] = [];
  const rowB: number[] = [];
  const rowGames: number[] = [];
  const rowScore: number[] = [];
  forEachResult((a, b, games, scoreA) => {
    if (!(Number.isFinite(games) && games >= 0 && scoreA >= 0 && scoreA <= games)) {
      throw new RangeError(`bad result ${a} vs ${b}: ${scoreA} points from ${games} games`);
    }
    if (games === 0) return;
    if (a === b) throw new RangeError(`bot ${a} is paired with itself`);
    rowA.push(indexOf(a));
    rowB.push(indexOf(b));
    rowGames.push(games);
    rowScore.push(scoreA);
  });
  const ids = [...firstSeen.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const bots = ids.length;
  const rank = new Int32Array(bots);
  ids.forEach((id, i) => {
    rank[firstSeen.get(id)!] = i;
  });

  // Second pass: file each row under its lower-ranked bot, then sum each bot's rows per opponent;
  // pairings come out ordered by (lo, hi) with no hashing and no sort.
  const rows = rowA.length;
  const rowHi = new Int32Array(rows);
  const rowsOf: number[][] = ids.map(() => []);
  for (let r = 0; r < rows; r++) {
    const a = rank[rowA[r]!]!;
    const b = rank[rowB[r]!]!;
    rowHi[r] = Math.max(a, b);
    if (a > b) rowScore[r] = rowGames[r]! - rowScore[r]!;
    rowsOf[Math.min(a, b)]!.push(r);
  }
  const capacity = Math.min(rows, (bots * (bots - 1)) / 2);
  const lo = new Int32Array(capacity);
  const hi = new Int32Array(capacity);
  const n = new Float64Array(capacity);
  const loScore = new Float64Array(capacity);
  const score = new Float64Array(bots);
  const games = new Float64Array(bots);
  const gamesWith = new Float64Array(bots);
  const scoreWith = new Float64Array(bots);
  let pairs = 0;
  for (let i = 0; i < bots; i++) {
    for (const r of rowsOf[i]!) {
      gamesWith[rowHi[r]!]! += rowGames[r]!;
      scoreWith[rowHi[r]!]! += rowScore[r]!;
    }
    for (let j = i + 1; j < bots; j++) {
      if (gamesWith[j] === 0) continue;
      lo[pairs] = i;
      hi[pairs] = j;
      n[pairs] = gamesWith[j]!;
      loScore[pairs] = scoreWith[j]!;
      score[i]! += scoreWith[j]!;
      score[j]! += gamesWith[j]! - scoreWith[j]!;
      games[i]! += gamesWith[j]!;
      games[j]! += gamesWith[j]!;
      gamesWith[j] = 0;
      scoreWith[j] = 0;
      pairs++;
    }
  }
  return {
    ids,
    score,
    games,
    lo: lo.slice(0, pairs),
    hi: hi.slice(0, pairs),
    n: n.slice(0, pairs),
    loScore: loScore.slice(0, pairs),
  };
}

/** Bots that met, directly or through others: lists of bot indices, each in ascending order. */
function connectedGroups(table: Table): number[][] {
  const parent = Int32Array.from(table.ids, (_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  for (let p = 0; p < table.n.length; p++) parent[root(table.lo[p]!)] = root(table.hi[p]!);
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < table.ids.length; i++) {
    const r = root(i);
    const group = byRoot.get(r);
    if (group) group.push(i);
    else byRoot.set(r, [i]);
  }
  return [...byRoot.values()];
}

/**
 * Hunter's condition for a finite MLE: in the digraph "i scored against j", every bot of a group
 * reaches every other, i.e. one bot reaches all of its group and is reached by all.
 */
function requireFiniteMle(table: Table, groups: readonly number[][]): void {
  const scoredAgainst: number[][] = table.ids.map(() => []);
  const concededTo: number[][] = table.ids.map(() => []);
  const link = (from: number, to: number) => {
    scoredAgainst[from]!.push(to);
    concededTo[to]!.push(from);
  };
  for (let p = 0; p < table.n.length; p++) {
    if (table.loScore[p]! > 0) link(table.lo[p]!, table.hi[p]!);
    if (table.loScore[p]! < table.n[p]!) link(table.hi[p]!, table.lo[p]!);
  }
  // The bots reached from group[0] along "scored against" never scored against the others, so a
  // bot left out is on a side that won every game against them; the reverse for "conceded to".
  for (const group of groups) {
    for (const [edges, way] of [
      [scoredAgainst, 'won'],
      [concededTo, 'lost'],
    ] as const) {
      const seen = new Set([group[0]!]);
      const stack = [group[0]!];
      for (let i = stack.pop(); i !== undefined; i = stack.pop()) {
        for (const j of edges[i]!) {
          if (seen.has(j)) continue;
          seen.add(j);
          stack.push(j);
        }
      }
      const missed = group.find((i) => !seen.has(i));
      if (missed === undefined) continue;
      throw new RangeError(
        `no finite maximum-likelihood ratings: ${table.ids[missed]} (alone or with others) ${way} ` +
          'every game against the rest of its group; use priorDraws > 0',
      );
    }
  }
}

/** The results plus the prior's virtual draws (`games` still counts real games only). */
function withPrior(table: Table, priorDraws: number): Table {
  if (priorDraws === 0) return table;
  const n = new Float64Array(table.n);
  const loScore = new Float64Array(table.loScore);
  const score = new Float64Array(table.score);
  for (let p = 0; p < n.length; p++) {
    const lo = table.lo[p]!;
    const hi = table.hi[p]!;
    const draws = (priorDraws / 2) * (table.n[p]! / table.games[lo]! + table.n[p]! / table.games[hi]!);
    n[p]! += draws;
    loScore[p]! += draws / 2;
    score[lo]! += draws / 2;
    score[hi]! += draws / 2;
  }
  return { ...table, n, loScore, score };
}

interface Model {
  readonly table: Table;
  readonly groups: readonly number[][];
  /** Scratch space for e^θ. */
  readonly strength: Float64Array;
}

/**
 * Log-strengths θ by Hunter's MM, accelerated by SQUAREM (Varadhan & Roland 2008). Plain MM
 * crawls when the bots form a long chain of near neighbours (as when pairings follow the
 * rating): thousands of steps there. SQUAREM takes two MM steps, extrapolates along them, and
 * keeps the extrapolation only if one more MM step from it does not lower the likelihood, so the
 * fit still climbs monotonically to the same maximum. One iteration is one such cycle.
 */
function fitLogStrengths(
  model: Model,
  tolerance: number,
  maxIterations: number,
): { theta: Float64Array; iterations: number; converged: boolean } {
  const bots = model.table.ids.length;
  let theta = new Float64Array(bots);
  const once = new Float64Array(bots);
  const twice = new Float64Array(bots);
  const leap = new Float64Array(bots);
  let next = new Float64Array(bots);
  let current = logLikelihood(model, theta);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    mmStep(model, theta, once);
    mmStep(model, once, twice);
    let rr = 0;
    let vv = 0;
    for (let i = 0; i < bots; i++) {
      const r = once[i]! - theta[i]!;
      const v = twice[i]! - 2 * once[i]! + theta[i]!;
      rr += r * r;
      vv += v * v;
    }
    let alpha = vv > 0 ? Math.min(-1, -Math.sqrt(rr / vv)) : -1;
    for (;;) {
      for (let i = 0; i < bots; i++) {
        const r = once[i]! - theta[i]!;
        const v = twice[i]! - 2 * once[i]! + theta[i]!;
        leap[i] = theta[i]! - 2 * alpha * r + alpha * alpha * v;
      }
      mmStep(model, leap, next);
      const reached = logLikelihood(model, next);
      // At alpha = -1 the leap is `twice`, so `next` is three plain MM steps: always an ascent.
      if (alpha === -1 || reached >= current - 1e-12 * Math.abs(current)) {
        current = reached;
        break;
      }
      alpha = (alpha - 1) / 2;
      if (alpha > -1.01) alpha = -1;
    }
    let largestStep = 0;
    for (let i = 0; i < bots; i++) largestStep = Math.max(largestStep, Math.abs(next[i]! - theta[i]!));
    [theta, next] = [next, theta];
    if (largestStep * ELO_PER_NEPER <= tolerance) return { theta, iterations: iteration, converged: true };
  }
  return { theta, iterations: maxIterations, converged: false };
}

/**
 * One MM step, π_i ← W_i / Σ_j n_ij / (π_i + π_j), in logs, then each group is shifted to mean 0
 * (the likelihood does not see a common shift; without this it would drift).
 */
function mmStep({ table, groups, strength }: Model, theta: Float64Array, out: Float64Array): void {
  for (let i = 0; i < theta.length; i++) strength[i] = Math.exp(theta[i]!);
  out.fill(0);
  for (let p = 0; p < table.n.length; p++) {
    const lo = table.lo[p]!;
    const hi = table.hi[p]!;
    const t = table.n[p]! / (strength[lo]! + strength[hi]!);
    out[lo]! += t;
    out[hi]! += t;
  }
  for (let i = 0; i < out.length; i++) out[i] = Math.log(table.score[i]! / out[i]!);
  for (const group of groups) {
    const mean = meanOf(out, group);
    for (const i of group) out[i]! -= mean;
  }
}

function meanOf(values: Float64Array, group: readonly number[]): number {
  let sum = 0;
  for (const i of group) sum += values[i]!;
  return sum / group.length;
}

/** Log-likelihood of the results, virtual draws included. */
function logLikelihood({ table, strength }: Model, theta: Float64Array): number {
  for (let i = 0; i < theta.length; i++) strength[i] = Math.exp(theta[i]!);
  let sum = 0;
  for (let p = 0; p < table.n.length; p++) {
    const lo = table.lo[p]!;
    const hi = table.hi[p]!;
    const s = table.loScore[p]!;
    sum +=
      s * theta[lo]! + (table.n[p]! - s) * theta[hi]! - table.n[p]! * Math.log(strength[lo]! + strength[hi]!);
  }
  // A wild extrapolation can overflow exp; NaN would slip past the caller's comparison.
  return Number.isNaN(sum) ? Number.NEGATIVE_INFINITY : sum;
}

/**
 * Var(θ_i − mean of i's group) from the observed information, per group. The information is a
 * weighted graph Laplacian L (weight n_ij p_ij p_ji per pairing), singular along the all-ones
 * vector. For a connected group of m bots, (L + J/m)⁻¹ = L⁺ + J/m (J all ones), so the variances
 * are the diagonal of that inverse less 1/m.
 */
function centredVariances({ table, groups }: Model, theta: Float64Array): Float64Array {
  const strength = theta.map(Math.exp);
  const position = new Int32Array(table.ids.length);
  const groupOf = new Int32Array(table.ids.length);
  groups.forEach((group, g) => {
    group.forEach((i, k) => {
      position[i] = k;
      groupOf[i] = g;
    });
  });
  const information = groups.map(({ length: m }) => new Float64Array(m * m).fill(1 / m));
  for (let p = 0; p < table.n.length; p++) {
    const lo = table.lo[p]!;
    const hi = table.hi[p]!;
    const m = groups[groupOf[lo]!]!.length;
    const matrix = information[groupOf[lo]!]!;
    const sum = strength[lo]! + strength[hi]!;
    const w = (table.n[p]! * strength[lo]! * strength[hi]!) / (sum * sum);
    const a = position[lo]!;
    const b = position[hi]!;
    matrix[a * m + a]! += w;
    matrix[b * m + b]! += w;
    matrix[a * m + b]! -= w;
    matrix[b * m + a]! -= w;
  }
  const variance = new Float64Array(table.ids.length);
  groups.forEach((group, g) => {
    const diagonal = inverseDiagonal(information[g]!, group.length);
    group.forEach((i, k) => {
      variance[i] = diagonal[k]! - 1 / group.length;
    });
  });
  return variance;
}

/**
 * The diagonal of A⁻¹ for a symmetric positive-definite m×m matrix A (row-major): Cholesky
 * A = L Lᵀ, U = L⁻¹, A⁻¹ = Uᵀ U, so (A⁻¹)_kk = Σ_i U_ik².
 */
function inverseDiagonal(a: Float64Array, m: number): Float64Array {
  const l = new Float64Array(m * m);
  for (let j = 0; j < m; j++) {
    let d = a[j * m + j]!;
    for (let k = 0; k < j; k++) d -= l[j * m + k]! ** 2;
    const pivot = Math.sqrt(d);
    l[j * m + j] = pivot;
    for (let i = j + 1; i < m; i++) {
      let s = a[i * m + j]!;
      for (let k = 0; k < j; k++) s -= l[i * m + k]! * l[j * m + k]!;
      l[i * m + j] = s / pivot;
    }
  }
  const u = new Float64Array(m * m);
  const diagonal = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    u[j * m + j] = 1 / l[j * m + j]!;
    diagonal[j]! += u[j * m + j]! ** 2;
    for (let i = j + 1; i < m; i++) {
      let s = 0;
      for (let k = j; k < i; k++) s += l[i * m + k]! * u[k * m + j]!;
      u[i * m + j] = -s / l[i * m + i]!;
      diagonal[j]! += u[i * m + j]! ** 2;
    }
  }
  return diagonal;
}
