import { describe, expect, it } from 'vitest';
import {
  type BradleyTerryFit,
  bradleyTerry,
  bradleyTerryFromTallies,
  type PairTally,
  type RatedGame,
} from './bradley-terry.ts';
import { EXACT_INTERVALS_MAX_BOTS } from './bt-intervals.ts';
import { eloUpdate } from './elo.ts';

const ELO_OF_TRIPLE_ODDS = 400 * Math.log10(3); // 190.848…

/** `wins`, `draws` and `losses` of `a` against `b`, alternating colours. */
function match(a: string, b: string, wins: number, draws: number, losses: number): RatedGame[] {
  const scores: (0 | 0.5 | 1)[] = [
    ...Array<1>(wins).fill(1),
    ...Array<0.5>(draws).fill(0.5),
    ...Array<0>(losses).fill(0),
  ];
  return scores.map((score, k) =>
    k % 2 === 0 ? { black: a, white: b, score } : { black: b, white: a, score: (1 - score) as 0 | 0.5 | 1 },
  );
}

function ratingOf(fit: BradleyTerryFit, id: string) {
  const found = fit.ratings.find((r) => r.id === id);
  if (!found) throw new Error(`${id} is not rated`);
  return found;
}

/** A small deterministic PRNG for generating test data (mulberry32). */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const threeBots = [...match('A', 'B', 18, 9, 3), ...match('B', 'C', 18, 9, 3), ...match('A', 'C', 24, 6, 0)];

describe('bradleyTerry', () => {
  describe('on the three-bot test vector with the prior off', () => {
    const fit = bradleyTerry(threeBots, { priorDraws: 0 });

    it('puts A 190.85 above B and C 190.85 below', () => {
      const b = ratingOf(fit, 'B').rating;
      expect(ratingOf(fit, 'A').rating - b).toBeCloseTo(ELO_OF_TRIPLE_ODDS, 2);
      expect(ratingOf(fit, 'C').rating - b).toBeCloseTo(-ELO_OF_TRIPLE_ODDS, 2);
      expect(Math.abs(ratingOf(fit, 'A').rating - b - 190.85)).toBeLessThan(0.01);
    });
    it('converges and lists the strongest first with their game counts', () => {
      expect(fit.converged).toBe(true);
      expect(fit.ratings.map((r) => [r.id, r.games])).toEqual([
        ['A', 60],
        ['B', 60],
        ['C', 60],
      ]);
    });
    it('gives the TSDoc example', () => {
      const anchored = bradleyTerry(threeBots, { priorDraws: 0, anchorMean: 0 });
      expect(anchored.ratings.map((r) => Math.round(r.rating))).toEqual([191, 0, -191]);
    });
    it('gives the same answer from pairwise tallies', () => {
      const fromTallies = bradleyTerryFromTallies(
        [
          { a: 'A', b: 'B', games: 30, scoreA: 22.5 },
          { a: 'C', b: 'B', games: 30, scoreA: 7.5 },
          { a: 'A', b: 'C', games: 20, scoreA: 18 },
          { a: 'C', b: 'A', games: 10, scoreA: 1 },
        ],
        { priorDraws: 0 },
      );
      expect(fromTallies.ratings.map((r) => r.rating)).toEqual(fit.ratings.map((r) => r.rating));
    });
  });

  it('gives equal ratings for symmetric results', () => {
    const games = [...match('x', 'y', 10, 4, 10), ...match('y', 'z', 7, 0, 7), ...match('x', 'z', 3, 8, 3)];
    for (const priorDraws of [0, 1]) {
      const ratings = bradleyTerry(games, { priorDraws }).ratings.map((r) => r.rating);
      for (const rating of ratings) expect(rating).toBeCloseTo(1500, 6);
    }
  });

  it.each([
    ['the default', undefined, 1500],
    ['a given anchor', 1823.5, 1823.5],
  ])('puts the mean rating at %s', (_name, anchorMean, expected) => {
    const fit = bradleyTerry(threeBots, anchorMean === undefined ? {} : { anchorMean });
    const mean = fit.ratings.reduce((sum, r) => sum + r.rating, 0) / fit.ratings.length;
    expect(mean).toBeCloseTo(expected, 9);
  });

  describe('confidence intervals', () => {
    it('contain the estimate, symmetrically', () => {
      for (const r of bradleyTerry(threeBots).ratings) {
        expect(r.lower).toBeLessThan(r.rating);
        expect(r.upper).toBeGreaterThan(r.rating);
        expect(r.upper - r.rating).toBeCloseTo(r.rating - r.lower, 9);
      }
    });
    it('shrink with more games, about as 1 / √games', () => {
      const width = (fit: BradleyTerryFit) => ratingOf(fit, 'A').upper - ratingOf(fit, 'A').lower;
      const once = bradleyTerry(threeBots, { priorDraws: 0 });
      const fourTimes = bradleyTerry([...threeBots, ...threeBots, ...threeBots, ...threeBots], {
        priorDraws: 0,
      });
      expect(width(fourTimes)).toBeLessThan(width(once));
      expect(width(fourTimes) / width(once)).toBeCloseTo(0.5, 9);
    });
    it('match the analytic standard error for two bots', () => {
      // Two bots, n games, p = 3/4: SE of (θa − θb) is 1/√(n p (1−p)); each bot is half of it.
      const fit = bradleyTerry(match('a', 'b', 30, 0, 10), { priorDraws: 0 });
      const se = (400 / Math.LN10) * (0.5 / Math.sqrt(40 * 0.75 * 0.25));
      expect(ratingOf(fit, 'a').upper - ratingOf(fit, 'a').rating).toBeCloseTo(1.959964 * se, 4);
    });
    it('past EXACT_INTERVALS_MAX_BOTS in a group, come from the games of each bot alone, and stay finite', () => {
      const bots = EXACT_INTERVALS_MAX_BOTS + 1;
      const tallies: PairTally[] = [];
      for (let i = 0; i < bots; i++) {
        for (let d = 1; d <= 3 && i + d < bots; d++)
          tallies.push({ a: `b${i}`, b: `b${i + d}`, games: 10, scoreA: 6 });
      }
      const fit = bradleyTerryFromTallies(tallies, { anchorMean: 1500 });
      const inner = fit.ratings.find((r) => r.id === 'b500')!;
      // A bot in the middle met 6 neighbours 10 times each at about p = 0.6: information ≈ 60·0.24.
      const se = 400 / Math.LN10 / Math.sqrt(60 * 0.6 * 0.4);
      expect(inner.upper - inner.rating).toBeCloseTo(1.959964 * se, -1);
      expect(
        fit.ratings.every((r) => Number.isFinite(r.lower) && r.lower < r.rating && r.upper > r.rating),
      ).toBe(true);
    });
  });

  describe('when a bot won every game', () => {
    const games = [
      ...match('champ', 'b', 10, 0, 0),
      ...match('b', 'c', 5, 2, 3),
      ...match('champ', 'c', 4, 0, 0),
    ];

    it('stays finite with the prior on', () => {
      const fit = bradleyTerry(games);
      expect(fit.converged).toBe(true);
      for (const r of fit.ratings) {
        for (const value of [r.rating, r.lower, r.upper]) expect(Number.isFinite(value)).toBe(true);
      }
      expect(fit.ratings[0]?.id).toBe('champ');
      expect(ratingOf(fit, 'champ').lower).toBeGreaterThan(ratingOf(fit, 'b').rating);
    });
    it('refuses to fit with the prior off, naming the bot', () => {
      expect(() => bradleyTerry(games, { priorDraws: 0 })).toThrow(/champ .*won every game/);
    });
    it('refuses a bot that lost every game with the prior off', () => {
      const losing = [...match('a', 'b', 3, 3, 3), ...match('a', 'dud', 5, 0, 0)];
      expect(() => bradleyTerry(losing, { priorDraws: 0 })).toThrow(/dud .*lost every game/);
    });
  });

  describe('when the bots fall into groups that never met', () => {
    const games = [...match('a', 'b', 20, 0, 10), ...match('c', 'd', 5, 0, 25)];

    it.each([0, 1])('anchors each group at the same mean (priorDraws %d)', (priorDraws) => {
      const fit = bradleyTerry(games, { anchorMean: 1600, priorDraws });
      expect(ratingOf(fit, 'a').rating + ratingOf(fit, 'b').rating).toBeCloseTo(3200, 9);
      expect(ratingOf(fit, 'c').rating + ratingOf(fit, 'd').rating).toBeCloseTo(3200, 9);
      expect(ratingOf(fit, 'd').rating).toBeGreaterThan(ratingOf(fit, 'a').rating);
    });
  });

  it('leaves out bots without games and returns nothing for no games', () => {
    const tallies: PairTally[] = [
      { a: 'a', b: 'b', games: 2, scoreA: 1 },
      { a: 'a', b: 'idle', games: 0, scoreA: 0 },
    ];
    expect(bradleyTerryFromTallies(tallies).ratings.map((r) => r.id)).toEqual(['a', 'b']);
    expect(bradleyTerry([])).toEqual({ ratings: [], iterations: 0, converged: true });
  });

  it.each([
    ['a bot paired with itself', [{ a: 'a', b: 'a', games: 1, scoreA: 1 }], {}],
    ['more points than games', [{ a: 'a', b: 'b', games: 1, scoreA: 2 }], {}],
    ['a negative prior', [], { priorDraws: -1 }],
    ['a non-finite anchor', [], { anchorMean: Number.NaN }],
  ])('rejects %s', (_name, tallies, options) => {
    expect(() => bradleyTerryFromTallies(tallies, options)).toThrow(RangeError);
  });

  describe('on a ladder where bots only meet their neighbours', () => {
    // Ten bots 200 points apart; each plays 100 games against the next with the expected score.
    const expected = 100 / (1 + 10 ** (-200 / 400));
    const ladder: PairTally[] = Array.from({ length: 9 }, (_, i) => ({
      a: `rung${i + 1}`,
      b: `rung${i}`,
      games: 100,
      scoreA: expected,
    }));
    const spread = (fit: BradleyTerryFit) => fit.ratings[0]!.rating - fit.ratings.at(-1)!.rating;

    it('recovers the 1800-point spread without the prior', () => {
      expect(spread(bradleyTerryFromTallies(ladder, { priorDraws: 0 }))).toBeCloseTo(1800, 3);
    });
    it('shrinks it by about 1% with the default prior, not by a third', () => {
      expect(spread(bradleyTerryFromTallies(ladder)) / 1800).toBeGreaterThan(0.99);
    });
    it('stops, at the default tolerance, within 0.001 points of a much tighter fit', () => {
      const random = mulberry32(11);
      const games: PairTally[] = [];
      for (let k = 0; k < 20_000; k++) {
        const low = Math.floor(random() * 99);
        const high = Math.min(99, low + 1 + Math.floor(random() * 5));
        const p = 1 / (1 + 10 ** (-(20 * (high - low)) / 400));
        games.push({ a: `b${high}`, b: `b${low}`, games: 1, scoreA: random() < p ? 1 : 0 });
      }
      const loose = bradleyTerryFromTallies(games);
      const tight = bradleyTerryFromTallies(games, { tolerance: 1e-10, maxIterations: 1_000_000 });
      expect(tight.converged).toBe(true);
      for (const r of loose.ratings) {
        expect(Math.abs(r.rating - ratingOf(tight, r.id).rating)).toBeLessThan(0.001);
      }
    });
  });

  describe("when started from the last fit's ratings", () => {
    // 200 bots 10 points apart, each meeting near neighbours in rank (as matchmaking pairs them),
    // then 2% more games: the refit a scheduler runs every few minutes.
    const random = mulberry32(17);
    const games = (count: number, bots: number): PairTally[] =>
      Array.from({ length: count }, () => {
        const low = Math.floor(random() * (bots - 1));
        const high = Math.min(bots - 1, low + 1 + Math.floor(random() * 8));
        const p = 1 / (1 + 10 ** (-(10 * (high - low)) / 400));
        return { a: `b${high}`, b: `b${low}`, games: 1, scoreA: random() < p ? 1 : 0 };
      });
    const before = games(40_000, 200);
    const after = [...before, ...games(800, 210)];
    const last = bradleyTerryFromTallies(before, { anchorMean: 1500 });
    const start = new Map(last.ratings.map((r) => [r.id, r.rating]));
    const scratch = bradleyTerryFromTallies(after, { anchorMean: 1520 });
    const warm = bradleyTerryFromTallies(after, { anchorMean: 1520, start });

    it('gives the from-scratch ratings and intervals within 0.001 points, new bots included', () => {
      expect(warm.converged).toBe(true);
      expect(warm.ratings.map((r) => r.id)).toEqual(scratch.ratings.map((r) => r.id));
      expect(warm.ratings.some((r) => !start.has(r.id))).toBe(true);
      for (const r of warm.ratings) {
        const s = ratingOf(scratch, r.id);
        expect(Math.abs(r.rating - s.rating)).toBeLessThan(0.001);
        expect(Math.abs(r.upper - s.upper)).toBeLessThan(0.001);
        expect(r.games).toBe(s.games);
      }
    });
    it('takes fewer iterations than a fit from scratch here, and a handful when nothing changed', () => {
      // How many a fit takes swings with the data (SQUAREM's leaps): here 136 against 228.
      expect(warm.iterations).toBeLessThan(scratch.iterations);
      expect(bradleyTerryFromTallies(before, { anchorMean: 1480, start }).iterations).toBeLessThanOrEqual(5);
    });
    it('shrugs off a start that is not finite, wild or of bots long gone', () => {
      const junk = new Map<string, number>([
        ['b0', Number.NaN],
        ['b1', Number.POSITIVE_INFINITY],
        ['b2', 1e300],
        ['b3', -1e9],
        ['gone', 1500],
      ]);
      const fit = bradleyTerryFromTallies(after, { anchorMean: 1520, start: junk });
      expect(fit.converged).toBe(true);
      for (const r of fit.ratings) {
        expect(Math.abs(r.rating - ratingOf(scratch, r.id).rating)).toBeLessThan(0.001);
      }
    });
  });

  it('reports when it runs out of iterations', () => {
    expect(bradleyTerry(threeBots, { maxIterations: 2 }).converged).toBe(false);
  });

  describe('unlike incremental Elo', () => {
    const replayElo = (games: readonly RatedGame[]) => {
      const elo = new Map<string, number>();
      for (const g of games) {
        const next = eloUpdate(elo.get(g.black) ?? 1500, elo.get(g.white) ?? 1500, g.score, 32, 32);
        elo.set(g.black, next.a);
        elo.set(g.white, next.b);
      }
      return Object.fromEntries([...elo].sort());
    };
    const reversed = [...threeBots].reverse();

    it('does not depend on the order of the games', () => {
      expect(Math.abs(replayElo(reversed).A! - replayElo(threeBots).A!)).toBeGreaterThan(1);
      expect(bradleyTerry(reversed)).toEqual(bradleyTerry(threeBots));
    });
    it('gives identical ratings for any shuffle', () => {
      const random = mulberry32(3);
      const shuffled = threeBots
        .map((game) => ({ game, key: random() }))
        .sort((x, y) => x.key - y.key)
        .map(({ game }) => game);
      expect(replayElo(shuffled)).not.toEqual(replayElo(threeBots));
      expect(bradleyTerry(shuffled)).toEqual(bradleyTerry(threeBots));
    });
  });

  it('rates 300 bots from 100 000 games in well under a second', () => {
    const random = mulberry32(7);
    const bots = 300;
    const truth = Array.from({ length: bots }, () => 400 * (random() + random() + random() - 1.5));
    const games: RatedGame[] = [];
    for (let k = 0; k < 100_000; k++) {
      const black = Math.floor(random() * bots);
      const white = (black + 1 + Math.floor(random() * (bots - 1))) % bots;
      const p = 1 / (1 + 10 ** ((truth[white]! - truth[black]!) / 400));
      const u = random();
      const score = u < p - 0.05 ? 1 : u < p + 0.05 ? 0.5 : 0;
      games.push({ black: `bot${black}`, white: `bot${white}`, score });
    }
    const started = performance.now();
    const fit = bradleyTerry(games);
    const elapsed = performance.now() - started;
    expect(fit.converged).toBe(true);
    expect(fit.ratings).toHaveLength(bots);
    expect(elapsed).toBeLessThan(1000);
    // The estimates track the truth: within their own intervals for the great majority.
    const meanTruth = truth.reduce((s, t) => s + t, 0) / bots;
    const covered = fit.ratings.filter((r) => {
      const t = truth[Number(r.id.slice(3))]! - meanTruth + 1500;
      return r.lower <= t && t <= r.upper;
    }).length;
    expect(covered / bots).toBeGreaterThan(0.9);
  });
});
