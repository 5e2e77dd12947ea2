import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { schedulerFor } from '../support/scheduler.ts';

let h: Harness;
beforeAll(async () => {
  // One match a bot, single matches (paired games need room for two).
  h = await createHarness({ MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1', MATCHMAKING_OPENINGS: 'standard' });
});
afterAll(() => h.close());

describe('matchmaking rounds of two processes at once', () => {
  it('never pair a bot past its cap: one round runs, the other skips', async () => {
    const bots = [];
    for (let i = 0; i < 6; i++)
      bots.push(await registerBot(h, { name: `lock-${i}`, url: 'http://127.0.0.1:9/' }));
    const [a, b] = [await schedulerFor(h, 1), await schedulerFor(h, 2)];
    try {
      const rounds = await Promise.all([a.scheduler.matchmake(), b.scheduler.matchmake()]);
      expect(rounds.flat()).toHaveLength(3); // six free bots, one match each
      expect(rounds.some((round) => round.length === 0)).toBe(true);
      const active = await h.stores.matches.activeMatchCounts(bots.map((bot) => bot.id));
      expect(active).toEqual([1, 1, 1, 1, 1, 1]);

      // The lock was released: the next round runs (and finds every bot at its cap).
      expect(await a.scheduler.matchmake()).toEqual([]);
      expect(await h.redis.exists(`${h.prefix}:lock:matchmaking`)).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
