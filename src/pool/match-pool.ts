import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { quitWithin } from '../connections/close-within.ts';
import {
  connected,
  connectedToRedis7,
  createRedis,
  RedisOutageLog,
  redisErrorListener,
} from '../connections/redis-connection.ts';
import { BullMatchQueue } from '../queue/match-queue.ts';
import { RedisPullStore } from '../redis/redis-pull-store.ts';
import { redisStores } from '../redis/redis-stores.ts';
import { replicaWaitOf } from '../redis/replica-wait.ts';
import { systemClock } from '../support/clock.ts';
import { secureRandomBytes } from '../support/random.ts';
import { loadSoloLayouts } from '../support/solo-layout-key.ts';
import { createWorkerPool } from './worker-pool.ts';

/**
 * Builds one pool of match workers on this thread: its own Redis connections and stores, then the
 * pool itself (see createWorkerPool), with (unless `matchmaking` is false) the scheduler.
 */
export async function startMatchPool(config: Config, logger: Logger, { matchmaking = true } = {}) {
  const outages = new RedisOutageLog(logger);
  const workerRedis = await connectedToRedis7(outages.watch(createRedis(config.redis.target, 'worker')));
  const storeRedis = await connected(outages.watch(createRedis(config.redis.target, 'worker')));
  const stores = redisStores(storeRedis, config.redis.prefix, {
    replicaWait: replicaWaitOf(storeRedis, config.redis.prefix, config.redis.replicaWait, logger),
  });
  // BullMQ defines its scripts on the connection it is given, and ioredis copies every script onto
  // each pipeline it builds: on the store's connection that would tax every store read.
  const queue = new BullMatchQueue(
    workerRedis,
    config.redis.prefix,
    redisErrorListener(outages, logger, 'match queue error'),
  );
  const pull = new RedisPullStore(storeRedis, config.redis.prefix);
  await loadSoloLayouts(config.soloSecret, () => stores.soloLayoutKey(secureRandomBytes));
  const pool = await createWorkerPool({
    stores,
    pull,
    queue,
    clock: systemClock,
    config,
    logger,
    connection: workerRedis,
    outages,
    matchmaking,
  });
  logger.info(
    { concurrency: config.workers.concurrency, matchmaking: matchmaking && config.matchmaking.enabled },
    'match workers started',
  );
  return {
    worker: pool.worker,
    scheduler: pool.scheduler,
    async close() {
      await pool.close();
      await pull.close();
      await queue.close();
      await stores.close();
      await quitWithin(storeRedis);
      await quitWithin(workerRedis);
    },
  };
}
