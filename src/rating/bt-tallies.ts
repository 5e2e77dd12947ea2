/**
 * From results to the numbers the fit works on: games or tallies summed into one row per pairing,
 * the connected groups of bots that can be compared, the check that a plain maximum-likelihood
 * fit is finite, and the prior's virtual draws. Pure, like the rest of the rating math.
 */

/** Pairings summed into flat arrays; bots are indexed in id order so the input order cannot matter. */
export interface Table {
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

/**
 * Sums results into a Table. `forEachResult` calls `visit` once per result (a game is one game;
 * a tally is many); rows with zero games are skipped, repeated or reversed pairs are summed.
 * Throws a RangeError for a score outside [0, games] or a bot paired with itself.
 */
export function tabulate(forEachResult: (visit: Visit) => void): Table {
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
export function connectedGroups(table: Table): number[][] {
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
export function requireFiniteMle(table: Table, groups: readonly number[][]): void {
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
export function withPrior(table: Table, priorDraws: number): Table {
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
