import { pino } from 'pino';
import { createRedis } from '../../src/connections/redis-connection.ts';
import { createWorkerPool } from '../../src/pool/worker-pool.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import type { Harness } from './harness.ts';
import { matchesEnded } from './match-events.ts';

/**
 * A real pool of match workers (BullMQ, the runner, house bots in-process, pull bots through Redis)
 * on the harness' stores and queue, wired as `npm run worker` wires it (createWorkerPool), in this
 * process, with `concurrency` matches at once and no scheduler jobs.
 */
export async function matchWorkerFor(h: Harness, concurrency = 4) {
  const connection = createRedis(h.config.redis.target, 'worker');
  await connection.connect();
  const pull = new RedisPullStore(h.redis, h.prefix);
  const config = { ...h.config, workers: { ...h.config.workers, concurrency, lockDurationMs: 5000 } };
  const pool = await createWorkerPool({
    stores: h.stores,
    pull,
    queue: h.queue,
    clock: h.clock,
    config,
    logger: pino({ level: 'silent' }),
    connection,
    matchmaking: false,
  });
  return {
    worker: pool.worker,
    async close() {
      await pool.close();
      await pull.close();
      await connection.quit();
    },
  };
}

/** Plays the matches `ids` out on a match worker of `h` (`concurrency` at once), then closes it. */
export async function playOut(h: Harness, ids: readonly string[], concurrency = 4): Promise<void> {
  const worker = await matchWorkerFor(h, concurrency);
  try {
    await matchesEnded(h, ids);
  } finally {
    await worker.close();
  }
}
