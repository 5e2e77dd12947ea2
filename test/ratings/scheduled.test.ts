import { Queue } from 'bullmq';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullPrefix } from '../../src/config.ts';
import { SCHEDULE_QUEUE_NAME } from '../../src/matchmaking/scheduler.ts';
import type { MatchRecord } from '../../src/model/records.ts';
import { registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { holdsAfterJobs, matchQueueEvents, queueEvents } from '../support/queue-events.ts';
import { exited, spawnWorker } from '../support/worker-process.ts';

let h: Harness;
let bot: LoopbackBot;
beforeAll(async () => {
  h = await createHarness();
  // Slow enough (a second or more a game) that a bot paired twice is seen in two matches at once.
  bot = await startLoopbackBot(playsFirstLegal(20));
});
afterAll(async () => {
  await bot.close();
  await h.close();
});

/**
 * Every match of each bot, oldest first, from the store: all of them, whatever their status (a
 * match handed back on SIGTERM stays running).
 */
async function matchesByBot(): Promise<Map<string, MatchRecord[]>> {
  const ids = (
    await Promise.all(
      (['queued', 'running', 'finished'] as const).map((status) =>
        h.stores.matches.matchIdsInStatus(status, 1000),
      ),
    )
  ).flat();
  const byBot = new Map<string, MatchRecord[]>();
  for (const match of await Promise.all(ids.map((id) => h.stores.matches.getMatch(id)))) {
    if (!match) continue;
    for (const side of [match.black.id, match.white.id]) byBot.set(side, [...(byBot.get(side) ?? []), match]);
  }
  for (const matches of byBot.values()) matches.sort((x, y) => x.createdAt - y.createdAt);
  return byBot;
}

describe('with matchmaking on, two worker processes', { timeout: 90_000 }, () => {
  it('keep the arena playing from one schedule, never pair a bot past its cap, and recompute the Bradley–Terry ratings', async () => {
    const registered = [];
    for (let i = 0; i < 4; i++) registered.push(await registerBot(h, { name: `sched-${i}`, url: bot.url }));
    const env = {
      MATCHMAKING_ENABLED: 'true',
      MATCHMAKING_INTERVAL_MS: '300',
      MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1',
      // A cap of one match: single matches (paired games need room for two).
      MATCHMAKING_OPENINGS: 'standard',
      STRENGTH_INTERVAL_MS: '500',
    };
    // Heard as the queues tell them: six matchmade matches' jobs done, and a strength job whose
    // work the leaderboard shows (each finished job of the schedule is a moment to look).
    const matchJobs = await matchQueueEvents(h);
    const scheduleJobs = await queueEvents(h, SCHEDULE_QUEUE_NAME);
    const sixPlayed = new Promise<void>((resolve) => {
      let played = 0;
      matchJobs.on('completed', () => ++played >= 6 && resolve());
    });
    const strengthShown = holdsAfterJobs(
      scheduleJobs,
      async () => (await request(h.app).get('/v1/leaderboard')).body.strengthComputedAt !== null,
    );
    const workers = [spawnWorker(h, env), spawnWorker(h, env)];
    try {
      await sixPlayed;
      await strengthShown;
    } finally {
      for (const worker of workers) worker.kill('SIGTERM');
      await Promise.all(workers.map(exited));
      await Promise.all([matchJobs.close(), scheduleJobs.close()]);
    }
    expect((await h.stores.matches.matchIdsInStatus('finished', 1000)).length).toBeGreaterThanOrEqual(6);
    const schedules = new Queue(SCHEDULE_QUEUE_NAME, { connection: h.redis, prefix: bullPrefix(h.prefix) });
    const schedulers = await schedules.getJobSchedulers();
    await schedules.close();
    expect(schedulers.map((s) => s.key).sort()).toEqual(['events', 'guests', 'matchmaking', 'strength']);

    // Both processes run matchmaking rounds, and each reads how many matches a bot is in before it
    // pairs it: two rounds at once would both see a free bot and pair it twice. With a cap of 1 a
    // bot's matches follow one another, each made once the one before had finished.
    const byBot = await matchesByBot();
    expect([...byBot.keys()].sort()).toEqual(registered.map((b) => b.id).sort());
    for (const matches of byBot.values()) {
      expect(matches.length).toBeGreaterThanOrEqual(2);
      for (const [i, match] of matches.entries()) {
        if (i === 0) continue;
        const before = matches[i - 1]!;
        expect(before.finishedAt, `${before.id} was still on when ${match.id} was made`).not.toBeNull();
        expect(match.createdAt, `${match.id} was made while ${before.id} was on`).toBeGreaterThanOrEqual(
          before.finishedAt!,
        );
      }
    }

    const res = await request(h.app).get('/v1/leaderboard');
    expect(res.status).toBe(200);
    // Every listed bot, ranked or not yet.
    const listed = [...res.body.items, ...res.body.unranked];
    expect(listed.every((e: { games: number }) => e.games > 0)).toBe(true);
    expect(listed.some((e: { strength: unknown }) => e.strength !== null)).toBe(true);
  });
});
