import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullPrefix, rateLimitPrefix } from '../../src/config.ts';
import { arenaKeyPatterns } from '../../src/redis/maintenance.ts';
import { startWorkers } from '../../src/wiring/processes.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchesEnded } from '../support/match-events.ts';
import { askServer } from '../support/private-redis.ts';
import { RedisClusterSet } from '../support/redis-cluster.ts';

/**
 * On a Redis Cluster the arena's keys, its queue's and its rate limits' lie under three hash tags
 * (`{arena}`, `{arena-queue}` and `{arena-rate}`: config.ts `bullPrefix`, `rateLimitPrefix`), so
 * where the slots' split puts them apart, three primaries carry the arena: its own keys on one,
 * BullMQ's jobs and the scripts it runs for each on another, the counters every API request counts
 * in on the third. The arena's own keys still share one tag (docs/cluster.md says what spreading
 * them takes).
 */
describe('an arena on a Redis Cluster', { timeout: 120_000 }, () => {
  let cluster: RedisClusterSet;
  let h: Harness;
  let workers: Awaited<ReturnType<typeof startWorkers>>;
  const bots: LoopbackBot[] = [];
  beforeAll(async () => {
    cluster = await RedisClusterSet.start({ downAfterMs: 15_000 });
    // A prefix whose three tags the test cluster's even split serves from three primaries, as it
    // does the default prefix's (`arena`: slots 14505, 10574 and 1492).
    const primariesOf = (name: string) =>
      Promise.all([name, `${name}-queue`, `${name}-rate`].map((tag) => cluster.primaryOf(tag)));
    let name = 'arena';
    for (let i = 0; new Set(await primariesOf(name)).size < 3; i++) name = `spread-${i}`;
    h = await createHarness({ ...cluster.env, REDIS_PREFIX: name });
    workers = await startWorkers(h.config, pino({ level: 'silent' }));
    for (let i = 0; i < 2; i++) bots.push(await startLoopbackBot(playsFirstLegal()));
  }, 60_000);
  afterAll(async () => {
    await workers?.close();
    await Promise.all(bots.map((bot) => bot.close()));
    await h?.close();
    await cluster?.stop();
  });

  it('spreads over three primaries: its own keys, its queue’s and its rate limits’ each on one', async () => {
    const [black, white] = [
      await registerBot(h, { name: 'spread-black', url: bots[0]!.url }),
      await registerBot(h, { name: 'spread-white', url: bots[1]!.url }),
    ];
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const [a, b] = i % 2 === 0 ? [black, white] : [white, black];
      ids.push(await createMatch(h, a.id, b.id, { rated: true }));
    }
    await matchesEnded(h, ids, 90_000);

    expect(bullPrefix(h.prefix)).toBe(`${h.prefix.slice(0, -1)}-queue}`);
    expect(rateLimitPrefix(h.prefix)).toBe(`${h.prefix.slice(0, -1)}-rate}`);
    const held = new Map<number, number>();
    for (const port of await cluster.primaries()) {
      let keys = 0;
      for (const pattern of arenaKeyPatterns(h.prefix)) {
        keys += (await askServer(port, (r) => r.keys(pattern))).length;
      }
      held.set(port, keys);
    }
    const total = [...held.values()].reduce((sum, keys) => sum + keys, 0);
    const shares = [...held.values()].map((keys) => keys / total).sort((x, y) => y - x);
    // Per match, the arena keeps its record and moves, the queue its job: each a real share. The
    // rate limits keep a few counters (this test's one client, per limiter it met) on the third.
    expect(total).toBeGreaterThan(2 * ids.length);
    expect(shares[1]).toBeGreaterThan(0.2);
    const rateCounters = await askServer(await cluster.primaryOf(rateLimitPrefix(h.prefix)), (r) =>
      r.keys(`${rateLimitPrefix(h.prefix)}:rate:*`),
    );
    expect(rateCounters.length).toBeGreaterThan(0);
    expect(shares[2]).toBeGreaterThan(0);
    console.log(`keys on the cluster's primaries: ${JSON.stringify(Object.fromEntries(held))}`);
  });
});
