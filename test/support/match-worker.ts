import { pino } from 'pino';
import { ChallengeService } from '../../src/arena/challenges.ts';
import { createRedis } from '../../src/connections/redis-connection.ts';
import { MatchWorker } from '../../src/pool/match-worker.ts';
import { systemClock } from '../../src/support/clock.ts';
import { pullPlayers, runnerFor } from './arena.ts';
import type { Harness } from './harness.ts';
import { until } from './private-redis.ts';

/**
 * A real match worker (BullMQ, the runner, house bots in-process, pull bots through Redis) on the
 * harness' queue, in this process: it plays every match the API queues, as `npm run worker` would.
 */
export async function matchWorkerFor(h: Harness, concurrency = 4) {
  const connection = createRedis(h.config.redis.url, 'worker');
  await connection.connect();
  const { runner, close } = runnerFor(h, { pull: pullPlayers(h) });
  const challenges = new ChallengeService({ stores: h.stores, queue: h.queue, clock: h.clock });
  const worker = new MatchWorker({
    connection,
    prefix: h.prefix,
    concurrency,
    runner,
    stores: h.stores,
    queue: h.queue,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    lockDurationMs: 5000,
    challengeWaitMs: h.config.workers.challengeWaitMs,
    expireChallenge: async (matchId) => {
      await challenges.expire(matchId);
    },
  });
  return {
    worker,
    async close() {
      await worker.close(0);
      await close();
      await connection.quit();
    },
  };
}

/** Plays the matches `ids` out on a match worker of `h` (`concurrency` at once), then closes it. */
export async function playOut(h: Harness, ids: readonly string[], concurrency = 4): Promise<void> {
  const worker = await matchWorkerFor(h, concurrency);
  try {
    await until(
      async () =>
        (await Promise.all(ids.map((id) => h.stores.matches.getMatch(id)))).every(
          (match) => match?.status === 'finished',
        ),
      'the matches to end',
    );
  } finally {
    await worker.close();
  }
}
