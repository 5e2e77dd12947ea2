import { pino } from 'pino';
import { MatchService } from '../../src/arena/matches.ts';
import { RoundMaker } from '../../src/arena/tournament-rounds.ts';
import { createRedis } from '../../src/connections/redis-connection.ts';
import { ArenaScheduler } from '../../src/matchmaking/scheduler.ts';
import { scheduledEvents } from '../../src/pool/worker-pool.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import type { Stores } from '../../src/store/store.ts';
import { secureRandomBytes, seededRandom } from '../../src/support/random.ts';
import type { Harness } from './harness.ts';

/** The match service the arena's processes build, on the harness' store (or `store`) and queue. */
export function matchServiceFor(h: Harness, stores: Stores = h.stores): MatchService {
  return new MatchService({
    stores,
    queue: h.queue,
    clock: h.clock,
    random: secureRandomBytes,
    limits: h.config.limits,
  });
}

/**
 * The arena's scheduler on the harness' store, driven by hand (its job schedulers are not started).
 * Its match service stores matches through `matchStore` (the harness' store unless given).
 */
export async function schedulerFor(h: Harness, seed = 1, matchStore: Stores = h.stores) {
  const connection = createRedis(h.config.redis.target, 'worker');
  await connection.connect();
  const scheduler = new ArenaScheduler({
    connection,
    config: h.config,
    stores: h.stores,
    pull: new RedisPullStore(h.redis, h.prefix),
    matches: matchServiceFor(h, matchStore),
    events: scheduledEvents({
      stores: h.stores,
      rounds: new RoundMaker({ queue: h.queue, clock: h.clock, random: secureRandomBytes }),
      clock: h.clock,
      config: h.config,
      queue: h.queue,
    }),
    clock: h.clock,
    random: seededRandom(seed),
    logger: pino({ level: 'silent' }),
  });
  return {
    scheduler,
    async close() {
      await scheduler.close();
      await connection.quit();
    },
  };
}
