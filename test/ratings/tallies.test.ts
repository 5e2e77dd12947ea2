import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eloRule } from '../../src/model/rating-rule.ts';
import type { MatchResult } from '../../src/model/records.ts';
import { bradleyTerry, bradleyTerryFromColumns, type RatedGame } from '../../src/rating/bradley-terry.ts';
import { seededRandom } from '../../src/support/random.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const result = (winner: 'black' | 'white' | null): MatchResult => ({
  winner,
  discs:
    winner === 'black'
      ? { black: 40, white: 24 }
      : winner === 'white'
        ? { black: 24, white: 40 }
        : { black: 32, white: 32 },
  reason: 'completed',
});

/** Creates and starts a rated match, for the test to finish by hand. */
async function running(black: string, white: string): Promise<string> {
  const id = await createMatch(h, black, white, { rated: true });
  await h.stores.matches.startMatch(id, Date.now());
  return id;
}

/** The tallies hash as `{ '<black> <white> <score>': count }`. */
async function talliesHash(harness: Harness): Promise<Record<string, string>> {
  return harness.redis.hgetall(`${harness.prefix}:rated-tallies`);
}

describe('the rated tallies', () => {
  it('count each finished rated match once per ordered pairing and outcome, however often it is finished', async () => {
    const a = await registerBot(h, { name: 'tally-a' });
    const b = await registerBot(h, { name: 'tally-b' });
    const rate = eloRule(h.config.rating);
    const played: [string, string, 'black' | 'white' | null][] = [
      [a.id, b.id, 'black'],
      [a.id, b.id, 'black'],
      [b.id, a.id, null],
      [b.id, a.id, 'white'],
    ];
    for (const [black, white, winner] of played) {
      const id = await running(black, white);
      // Two finishers at once (a resend, or a second worker): one writes, the other finds it ended.
      const finished = await Promise.all([
        h.stores.matches.finishMatch(id, result(winner), Date.now(), rate),
        h.stores.matches.finishMatch(id, result(winner), Date.now(), rate),
      ]);
      expect(finished.filter(Boolean)).toHaveLength(1);
      expect(await h.stores.matches.finishMatch(id, result(winner), Date.now(), rate)).toBe(false);
    }
    // An unrated match counts for nobody.
    const unrated = await createMatch(h, a.id, b.id, { rules: { timeLimitMs: 5000, overageMs: 0 } });
    await h.stores.matches.startMatch(unrated, Date.now());
    await h.stores.matches.finishMatch(unrated, result('black'), Date.now(), rate);

    expect(await talliesHash(h)).toEqual({
      [`${a.id} ${b.id} 1`]: '2',
      [`${b.id} ${a.id} 0.5`]: '1',
      [`${b.id} ${a.id} 0`]: '1',
    });
    const columns = await h.stores.ratings.ratedTallies();
    const games = [...columns.games].reduce((sum, n) => sum + n, 0);
    expect(games).toBe(played.length);
  });
});

describe('the legacy rated-results list', () => {
  let legacy: Harness;
  beforeAll(async () => {
    legacy = await createHarness();
  });
  afterAll(async () => {
    await legacy.close();
  });

  it('is folded into the tallies once, and the fit from the tallies equals the fit from the list', async () => {
    const random = seededRandom(13);
    const ids = Array.from({ length: 12 }, (_, i) => `bot_legacy${String(i).padStart(2, '0')}`);
    const games: RatedGame[] = [];
    for (let i = 0; i < 25_000; i++) {
      const black = ids[Math.floor(random() * ids.length)]!;
      let white = ids[Math.floor(random() * ids.length)]!;
      if (white === black) white = ids[(ids.indexOf(black) + 1) % ids.length]!;
      const r = random();
      games.push({ black, white, score: r < 0.45 ? 1 : r < 0.55 ? 0.5 : 0 });
    }
    const list = `${legacy.prefix}:rated-results`;
    // Results of old workers in the list, and one result a new worker already counted.
    for (let start = 0; start < games.length - 1; start += 5_000) {
      await legacy.redis.rpush(
        list,
        ...games
          .slice(start, Math.min(start + 5_000, games.length - 1))
          .map((g) => `${g.black} ${g.white} ${g.score}`),
      );
    }
    const last = games.at(-1)!;
    await legacy.redis.hincrby(
      `${legacy.prefix}:rated-tallies`,
      `${last.black} ${last.white} ${last.score}`,
      1,
    );

    const first = await legacy.stores.ratings.ratedTallies();
    expect(await legacy.redis.exists(list)).toBe(0);
    const again = await legacy.stores.ratings.ratedTallies();
    expect([...again.games].reduce((sum, n) => sum + n, 0)).toBe(games.length);

    const fromList = bradleyTerry(games, { anchorMean: 1500 });
    expect(bradleyTerryFromColumns(first, { anchorMean: 1500 })).toEqual(fromList);
    expect(bradleyTerryFromColumns(again, { anchorMean: 1500 })).toEqual(fromList);
  });
});
