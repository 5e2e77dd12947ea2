import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitPrefix } from '../../src/config.ts';
import { startApi } from '../../src/wiring/api-process.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { until } from '../support/private-redis.ts';
import { scanKeys } from '../support/redis-keys.ts';

const LIMIT = 20;

describe('two API processes on one Redis', () => {
  let h: Harness;
  let other: Awaited<ReturnType<typeof startApi>>;
  beforeAll(async () => {
    // Each test is a client at an address of its own, as a reverse proxy on this host reports it.
    h = await createHarness({
      RATE_LIMIT_PER_IP: String(LIMIT),
      RATE_LIMIT_PER_TOKEN: '1000',
      TRUST_PROXY: 'loopback',
    });
    // A second app on the same prefix, as a second API process would run.
    other = await startApi(h.config, pino({ level: 'silent' }), () => false);
  });
  afterAll(async () => {
    await other.close();
    await h.close();
  });

  const counterOf = async (address: string) => {
    const keys = (await scanKeys(h.redis, `${rateLimitPrefix(h.prefix)}:rate:*`)).filter((key) =>
      key.endsWith(`:a:${address}`),
    );
    return keys.length === 1 ? Number(await h.redis.get(keys[0]!)) : keys.length;
  };
  const from = (app: typeof h.app, address: string) =>
    request(app).get('/v1/leaderboard').set('x-forwarded-for', address);

  it('share one budget: a client that spent it on one is refused by the other', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await from(h.app, '198.51.100.1')).status).toBe(200);
    const refused = await from(other.app, '198.51.100.1');
    expect(refused.status).toBe(429);
    expect(refused.headers.ratelimit).toMatch(/r=0/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await until(async () => (await counterOf('198.51.100.1')) === LIMIT + 1, 'every hit to reach Redis');
  });

  it('admit at most the limit plus half of it for the other process, alternating requests', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++)
      statuses.push((await from(i % 2 === 0 ? h.app : other.app, '198.51.100.2')).status);
    const admitted = statuses.filter((status) => status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(LIMIT);
    // The documented bound (src/redis/batched-rate-limit-store.ts): limit + (N − 1) × ½ × limit.
    expect(admitted).toBeLessThanOrEqual(LIMIT + LIMIT / 2);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    // Every admitted hit reaches Redis within a flush interval, and so does each process' first
    // refusal, decided there; the refusals after it are answered at the door and count nowhere.
    await until(async () => (await counterOf('198.51.100.2')) >= admitted + 1, 'every hit to reach Redis');
    expect(await counterOf('198.51.100.2')).toBeLessThanOrEqual(admitted + 2);
  });
});
