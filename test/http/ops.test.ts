import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, registerBot } from '../support/api.ts';
import { ADMIN_TOKEN, createHarness, type Harness } from '../support/harness.ts';
import { connectionIs, PrivateRedis } from '../support/private-redis.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('GET /healthz', () => {
  it('answers ok', async () => {
    const res = await request(h.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });
});

describe('GET /readyz', () => {
  it('answers ok while Redis answers', async () => {
    expect((await request(h.app).get('/readyz')).status).toBe(200);
  });
});

describe('GET /metrics', () => {
  it('reports HTTP latency by route template', async () => {
    await request(h.app).get('/v1/bots/bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH');
    const res = await request(h.app).get('/metrics').set(admin);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/v1\/bots\/:botId",status="404"\} 1/,
    );
  });

  it("includes the match queue's job counts", async () => {
    const res = await request(h.app).get('/metrics').set(admin);
    expect(res.text).toMatch(/bullmq_job_count\{queue="matches", ?state="waiting"\} \d+/);
  });
});

describe('GET /metrics without the admin token', () => {
  it('answers 401 without a token or with an unknown one, 403 to a bot, and shows nothing', async () => {
    const anonymous = await request(h.app).get('/metrics');
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain('http_request_duration_seconds');
    // One character off the admin token: a guess, which is no token at all.
    const unknown = await request(h.app)
      .get('/metrics')
      .set(bearer(`${ADMIN_TOKEN.slice(0, -1)}x`));
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('auth/invalid-token');
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(unknown.text).not.toContain('http_request_duration_seconds');
    const bot = await registerBot(h, { name: 'metrics-reader' });
    const asBot = await request(h.app).get('/metrics').set(bearer(bot.token));
    expect(asBot.status).toBe(403);
    expect(asBot.body.code).toBe('auth/admin-required');
  });
});

describe('GET /metrics and the rate limit', () => {
  it("counts guesses at the admin token against the address, and never the admin's scrapes", async () => {
    const limited = await createHarness({ RATE_LIMIT_PER_IP: '5', RATE_LIMIT_PER_TOKEN: '5' });
    try {
      const guesses: number[] = [];
      for (let i = 0; i < 7; i++) {
        guesses.push(
          (
            await request(limited.app)
              .get('/metrics')
              .set(bearer(`guess-${i}-0123456789abcdef`))
          ).status,
        );
      }
      expect(guesses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      const scrapes: number[] = [];
      for (let i = 0; i < 7; i++)
        scrapes.push((await request(limited.app).get('/metrics').set(admin)).status);
      expect(scrapes).toEqual(Array(7).fill(200));
    } finally {
      await limited.close();
    }
  });
});

describe('every answer', () => {
  it('carries security headers', async () => {
    const res = await request(h.app).get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('under /v1/ carries the headers that matter to JSON and event streams, not the HTML ones', async () => {
    const res = await request(h.app).get('/v1/leaderboard');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(res.headers['x-xss-protection']).toBeUndefined();
    expect(res.headers['origin-agent-cluster']).toBeUndefined();
  });
});

describe('rate limit headers', () => {
  let budgeted: Harness;
  beforeAll(async () => {
    budgeted = await createHarness({ RATE_LIMIT_PER_IP: '10' });
  });
  afterAll(async () => budgeted.close());

  it('tell an answered read its budget: the IETF headers, counting down, with one partition key per client', async () => {
    const first = await request(budgeted.app).get('/v1/leaderboard');
    const second = await request(budgeted.app).get('/v1/leaderboard');
    expect(first.headers.ratelimit).toMatch(/^"address"; r=\d+; t=\d+$/);
    const remaining = (res: request.Response) => Number(/r=(\d+)/.exec(String(res.headers.ratelimit))![1]);
    expect(remaining(second)).toBe(remaining(first) - 1);
    expect(first.headers['ratelimit-policy']).toMatch(/^"address"; q=10; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect(second.headers['ratelimit-policy']).toBe(first.headers['ratelimit-policy']);
  });
});

describe('rate limits', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await createHarness({ RATE_LIMIT_PER_IP: '3', RATE_LIMIT_PER_TOKEN: '5' });
  });
  afterAll(async () => limited.close());

  it('answer 429 with RateLimit headers and Retry-After past the per-address limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(limited.app).get('/v1/leaderboard')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await request(limited.app).get('/v1/leaderboard');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('rate-limited');
    expect(res.body.detail).toBe('Too many requests: at most 3 per 60 s.');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers.ratelimit).toMatch(/r=0/);
    expect(res.headers['ratelimit-policy']).toMatch(/q=3/);
  });

  it('count a token apart from its address, with its own limit', async () => {
    // Spend this address' budget of 3 (the test before may have): the admin token, from the same
    // address, still has a budget of its own.
    for (let i = 0; i < 3; i++) await request(limited.app).get('/v1/leaderboard');
    expect((await request(limited.app).get('/v1/leaderboard')).status).toBe(429);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await request(limited.app).get('/v1/leaderboard').set(admin)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('leave health checks alone', async () => {
    for (let i = 0; i < 5; i++) expect((await request(limited.app).get('/healthz')).status).toBe(200);
  });
});

describe('when Redis goes down', () => {
  let redis: PrivateRedis;
  let outage: Harness;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    outage = await createHarness({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await redis.start().catch(() => {});
    await outage.close();
    await redis.stop();
  });

  it('answers 503 at once, and recovers by itself when Redis returns', async () => {
    expect((await request(outage.app).get('/v1/bots')).status).toBe(200);
    await redis.stop();
    // The client notices as its connection closes.
    await connectionIs(outage.redis, 'down');

    const down = await request(outage.app).get('/v1/bots');
    expect(down.status).toBe(503);
    expect(down.headers['content-type']).toMatch(/^application\/problem\+json/);
    const write = await request(outage.app).post('/v1/bots').send({ name: 'during-outage' });
    expect(write.status).toBe(503);
    expect((await request(outage.app).get('/readyz')).status).toBe(503);
    expect((await request(outage.app).get('/healthz')).status).toBe(200);

    await redis.start();
    // Ready again as its connection is: readiness asks that connection.
    await connectionIs(outage.redis, 'ready');
    expect((await request(outage.app).get('/readyz')).status).toBe(200);
    expect((await request(outage.app).get('/v1/bots')).status).toBe(200);
  });
});
