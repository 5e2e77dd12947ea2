import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullPrefix } from '../../src/config.ts';
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
 * On a Redis Cluster the arena's keys and its queue's lie under two hash tags (`{arena}` and
 * `{arena-queue}`: config.ts `bullPrefix`), so where the slots' split puts the two apart, two
 * primaries carry the arena: its own keys on one, BullMQ's jobs and the scripts it runs for each on
 * another. The arena's own keys still share one tag (docs/cluster.md says what spreading them takes).
 */
describe('an arena on a Redis Cluster', { timeout: 120_000 }, () => {
  let cluster: RedisClusterSet;
  let h: Harness;
  let workers: Awaited<ReturnType<typeof startWorkers>>;
  const bots: LoopbackBot[] = [];
  beforeAll(async () => {
    cluster = await RedisClusterSet.start({ downAfterMs: 15_000 });
    // A prefix whose two tags the test cluster's even split serves from two primaries, as it does
    // the default prefix's (`arena`: slots 14505 and 10574).
    let name = 'arena';
    for (let i = 0; (await cluster.primaryOf(name)) === (await cluster.primaryOf(`${name}-queue`)); i++)
      name = `spread-${i}`;
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

  it('spreads over two primaries: its own keys on one, its queue’s on another', async () => {
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
    // Per match, the arena keeps its record and moves, the queue its job: each primary a real share.
    expect(total).toBeGreaterThan(2 * ids.length);
    expect(shares[1]).toBeGreaterThan(0.2);
    console.log(`keys on the cluster's primaries: ${JSON.stringify(Object.fromEntries(held))}`);
  });
});
