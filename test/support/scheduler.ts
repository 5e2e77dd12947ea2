import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { MatchService } from '../../src/arena/matches.ts';
import { systemClock } from '../../src/clock.ts';
import { ArenaScheduler } from '../../src/matchmaking/scheduler.ts';
import { seededRandom } from '../../src/random.ts';
import { createRedis } from '../../src/store/redis-connection.ts';
import { RedisPullStore } from '../../src/store/redis-pull-store.ts';
import type { Harness } from './harness.ts';

/** The arena's scheduler on the harness' store, driven by hand (its job schedulers are not started). */
export async function schedulerFor(h: Harness, seed = 1) {
  const connection = createRedis(h.config.redis.url, 'worker');
  await connection.connect();
  const scheduler = new ArenaScheduler({
    connection,
    config: h.config,
    store: h.store,
    pull: new RedisPullStore(h.redis, h.prefix),
    matches: new MatchService({
      store: h.store,
      queue: h.queue,
      clock: systemClock,
      random: (size) => randomBytes(size),
      limits: h.config.limits,
    }),
    clock: systemClock,
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
