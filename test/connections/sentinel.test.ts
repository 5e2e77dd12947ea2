import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../src/wiring/processes.ts';
import { admin, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { until } from '../support/private-redis.ts';
import { SentinelSet } from '../support/sentinel-set.ts';

/**
 * The arena on a primary with a replica behind three sentinels (REDIS_SENTINELS): the primary is
 * killed with kill -9 while a rated match is being played, and the arena carries on against the
 * promoted replica without a restart: the API answers again, and the match ends once, its ratings
 * zero-sum.
 */
let set: SentinelSet;
let h: Harness;
let workers: Awaited<ReturnType<typeof startWorkers>>;
const bots: LoopbackBot[] = [];
beforeAll(async () => {
  set = await SentinelSet.start();
  // LOG_LEVEL fatal: the failover's expected 503s would each log an error line.
  h = await createHarness({ ...set.env, SHUTDOWN_GRACE_MS: '0', LOG_LEVEL: 'fatal' });
  workers = await startWorkers(h.config, pino({ level: 'silent' }));
  for (let i = 0; i < 2; i++) bots.push(await startLoopbackBot(playsFirstLegal(40)));
}, 60_000);
afterAll(async () => {
  await Promise.all(bots.map((bot) => bot.close()));
  await workers?.close();
  await h?.close();
  await set?.stop();
});

describe('Redis behind Sentinel', { timeout: 90_000 }, () => {
  it('survives a kill -9 of the primary mid-match: the API answers again, the match ends once', async () => {
    const [black, white] = [
      await registerBot(h, { name: 'sentinel-black', url: bots[0]!.url }),
      await registerBot(h, { name: 'sentinel-white', url: bots[1]!.url }),
    ];
    const created = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: black.id, white: white.id, rated: true });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const matchId = created.body.id as string;
    const match = () => request(h.app).get(`/v1/matches/${matchId}`);
    await until(async () => ((await match()).body.moves?.length ?? 0) >= 6, 'a few moves', 20_000);
    await set.replicated();
    const before = await set.primary();

    await set.killPrimary();
    const killedAt = Date.now();
    const statuses: number[] = [];
    await until(
      async () => {
        const res = await match();
        statuses.push(res.status);
        return res.status === 200 && (await set.primary().catch(() => before)) !== before;
      },
      'the API to answer from the promoted primary',
      30_000,
    );
    const outageMs = Date.now() - killedAt;
    expect(await set.primary()).toBe(set.replicaPort);
    // Only 503s (the store unreachable) while the sentinels fail over, never another error.
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    console.log(`failover: the API answered again after ${outageMs} ms (${statuses.length} reads)`);

    await until(async () => (await match()).body.status === 'finished', 'the match to finish', 60_000);
    const finished = (await match()).body;
    expect(finished.result.reason).toBe('completed');
    const [b, w] = await Promise.all(
      [black, white].map(async (bot) => (await request(h.app).get(`/v1/bots/${bot.id}`)).body),
    );
    // Rated once: one game each, and what one gained the other lost.
    expect([b.ratedGames, w.ratedGames]).toEqual([1, 1]);
    expect(b.rating + w.rating).toBeCloseTo(3000, 6);
    // Writes go to the new primary.
    expect((await registerBot(h, { name: 'after-failover' })).id).toMatch(/^bot_/);
  });
});
