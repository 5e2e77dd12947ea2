import { Queue } from 'bullmq';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEDULE_QUEUE_NAME } from '../../src/matchmaking/scheduler.ts';
import { bullPrefix } from '../../src/queue/match-queue.ts';
import { registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { until } from '../support/private-redis.ts';
import { exited, spawnWorker } from '../support/worker-process.ts';

let h: Harness;
let bot: LoopbackBot;
beforeAll(async () => {
  h = await createHarness();
  bot = await startLoopbackBot(playsFirstLegal());
});
afterAll(async () => {
  await bot.close();
  await h.close();
});

describe('with matchmaking on, two worker processes', { timeout: 90_000 }, () => {
  it('keep the arena playing from one schedule, and recompute the Bradley–Terry ratings', async () => {
    for (let i = 0; i < 4; i++) await registerBot(h, { name: `sched-${i}`, url: bot.url });
    const env = {
      MATCHMAKING_ENABLED: 'true',
      MATCHMAKING_INTERVAL_MS: '300',
      MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1',
      STRENGTH_INTERVAL_MS: '500',
    };
    const workers = [spawnWorker(h, env), spawnWorker(h, env)];
    try {
      await until(
        async () => (await h.store.matchIdsInStatus('finished', 1000)).length >= 6,
        'matchmade matches',
        60_000,
      );
      await until(
        async () => (await request(h.app).get('/v1/leaderboard')).body.strengthComputedAt !== null,
        'the strength job',
        30_000,
      );
    } finally {
      for (const worker of workers) worker.kill('SIGTERM');
      await Promise.all(workers.map(exited));
    }
    const schedules = new Queue(SCHEDULE_QUEUE_NAME, { connection: h.redis, prefix: bullPrefix(h.prefix) });
    const schedulers = await schedules.getJobSchedulers();
    await schedules.close();
    expect(schedulers.map((s) => s.key).sort()).toEqual(['matchmaking', 'strength']);

    const board = (await request(h.app).get('/v1/leaderboard')).body;
    expect(board.items.every((e: { games: number }) => e.games > 0)).toBe(true);
    expect(board.items.some((e: { strength: unknown }) => e.strength !== null)).toBe(true);
  });
});
