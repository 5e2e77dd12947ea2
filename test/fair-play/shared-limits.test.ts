import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi } from '../../src/service.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { until } from '../support/private-redis.ts';
import { scanKeys } from '../support/redis-keys.ts';

const LIMIT = 20;

describe('two API processes on one Redis', () => {
  let h: Harness;
  let other: Awaited<ReturnType<typeof startApi>>;
  beforeAll(async () => {
    h = await createHarness({ RATE_LIMIT_PER_IP: String(LIMIT), RATE_LIMIT_PER_TOKEN: '1000' });
    // A second app on the same prefix, as a second API process would run.
    other = await startApi(h.config, pino({ level: 'silent' }), () => false);
  });
  afterAll(async () => {
    await other.close();
    await h.close();
  });

  const addressCounter = async () => {
    const keys = (await scanKeys(h.redis, `${h.prefix}:rate:*`)).filter((key) => key.includes(':rate:a:'));
    return keys.length === 1 ? Number(await h.redis.get(keys[0]!)) : keys.length;
  };

  it('share one budget: a client that spent it on one is refused by the other', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await request(h.app).get('/v1/leaderboard')).status).toBe(200);
    const refused = await request(other.app).get('/v1/leaderboard');
    expect(refused.status).toBe(429);
    expect(refused.headers.ratelimit).toMatch(/r=0/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await until(async () => (await addressCounter()) === LIMIT + 1, 'every hit to reach Redis');
  });

  it('admit at most the limit plus half of it for the other process, alternating requests', async () => {
    // A fresh window for the address, the tests' one client: both processes see it at their next ask.
    await h.redis.del(...(await scanKeys(h.redis, `${h.prefix}:rate:a:*`)));
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      statuses.push((await request(i % 2 === 0 ? h.app : other.app).get('/v1/leaderboard')).status);
    }
    const admitted = statuses.filter((status) => status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(LIMIT);
    // The documented bound (src/store/batched-rate-limit-store.ts): limit + (N − 1) × ½ × limit.
    expect(admitted).toBeLessThanOrEqual(LIMIT + LIMIT / 2);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    // Every hit reaches Redis within a flush interval, refused ones included.
    await until(async () => (await addressCounter()) === 2 * LIMIT, 'every hit to reach Redis');
  });
});
