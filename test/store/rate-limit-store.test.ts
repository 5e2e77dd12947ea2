import { randomUUID } from 'node:crypto';
import type { Options } from 'express-rate-limit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchedRateLimitStore } from '../../src/redis/batched-rate-limit-store.ts';
import { storeKeys } from '../../src/redis/keys.ts';
import { deleteKeysUnder } from '../../src/redis/maintenance.ts';
import { redisRateLimitStores } from '../../src/redis/rate-limit-store.ts';
import { REDIS_URL } from '../support/harness.ts';
import { PrivateRedis } from '../support/private-redis.ts';

const WINDOW_MS = 60_000;
/** Long enough that the store's own timer never fires during a test: each test flushes by itself. */
const FLUSH_MS = 10_000;

let redis: Redis;
const prefix = `test-${randomUUID()}`;
beforeAll(() => {
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

/** A clock that moves only when told, starting now (Redis' TTLs are real milliseconds). */
function steppingClock() {
  let now = Date.now();
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** A store as one API process holds it. */
function storeOf(name: string, limit: number, clock = steppingClock()) {
  const store = new BatchedRateLimitStore({
    redis,
    prefix: `${prefix}:rate:${name}:`,
    limitOf: () => limit,
    flushMs: FLUSH_MS,
    clock,
  });
  store.init({ windowMs: WINDOW_MS } as Options);
  return store;
}

const hits = async (store: BatchedRateLimitStore, key: string, n: number) => {
  const totals: number[] = [];
  for (let i = 0; i < n; i++) totals.push((await store.increment(key)).totalHits);
  return totals;
};

const counter = (name: string, key: string) => `${prefix}:rate:${name}:${key}`;

describe('the batched rate-limit store', () => {
  describe('in one process', () => {
    it('counts every hit exactly, asking Redis only to open the window and past half the limit', async () => {
      const store = storeOf('exact', 100);
      expect(await hits(store, 'c', 50)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await redis.get(counter('exact', 'c'))).toBe('1');
      expect((await store.increment('c')).totalHits).toBe(51);
      expect(await redis.get(counter('exact', 'c'))).toBe('51');
    });

    it('counts concurrent first hits exactly', async () => {
      const store = storeOf('concurrent', 100);
      const totals = await Promise.all(Array.from({ length: 30 }, () => store.increment('c')));
      expect(totals.map((t) => t.totalHits).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
    });

    it('gives a hit back with the next flush', async () => {
      const store = storeOf('give-back', 100);
      await hits(store, 'c', 10);
      store.decrement('c');
      store.decrement('c');
      expect((await store.increment('c')).totalHits).toBe(9);
      await store.flush();
      expect(await redis.get(counter('give-back', 'c'))).toBe('9');
    });
  });

  describe('in Redis', () => {
    it("keeps rate-limit-redis' key and TTL: the window opens with the first hit, for windowMs", async () => {
      const store = storeOf('keys', 100);
      const first = await store.increment('c');
      await hits(store, 'c', 4);
      await store.flush();
      const key = counter('keys', 'c');
      expect(await redis.get(key)).toBe('5');
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(WINDOW_MS - 5_000);
      expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
      expect(first.resetTime!.getTime() - Date.now()).toBeGreaterThan(WINDOW_MS - 5_000);
    });

    it('decides at Redis past half the limit, so a reset there is seen at once', async () => {
      const store = storeOf('reset', 4);
      expect(await hits(store, 'c', 5)).toEqual([1, 2, 3, 4, 5]);
      await redis.del(counter('reset', 'c'));
      expect((await store.increment('c')).totalHits).toBe(1);
    });

    it('never opens a window with carried hits: those of a window that ended are dropped', async () => {
      const clock = steppingClock();
      const store = storeOf('ended', 100, clock);
      await hits(store, 'c', 5);
      clock.advance(WINDOW_MS);
      await redis.del(counter('ended', 'c')); // as Redis expires it
      await store.flush();
      expect(await redis.exists(counter('ended', 'c'))).toBe(0);
      expect((await store.increment('c')).totalHits).toBe(1);
      expect(await redis.pttl(counter('ended', 'c'))).toBeGreaterThan(WINDOW_MS - 5_000);
    });
  });

  describe('at shutdown', () => {
    it('sends the hits counted here and not sent yet', async () => {
      const stores = redisRateLimitStores(redis, `${prefix}:stores`);
      const store = stores('requests', { limitOf: () => 100 }) as BatchedRateLimitStore;
      store.init({ windowMs: WINDOW_MS } as Options);
      await hits(store, 'c', 5);
      const key = `${storeKeys(`${prefix}:stores`).rateLimit('requests')}c`;
      expect(Number(await redis.get(key))).toBe(1);
      await stores.shutdown();
      expect(Number(await redis.get(key))).toBe(5);
    });
  });

  describe('when Redis is slow', () => {
    it('does not send again the hits of a batch whose call timed out: Redis may have counted them', async () => {
      // A Redis of the test's own, which it keeps busy: the suite's shared one, blocked, timed out
      // other files' commands. The timeout is well under the busy spell, yet long enough that a
      // loaded machine does not time out the calls before it.
      const own = await PrivateRedis.start();
      const slow = new Redis(own.url, { commandTimeout: 300 });
      const blocker = new Redis(own.url);
      const check = new Redis(own.url);
      try {
        const store = new BatchedRateLimitStore({
          redis: slow,
          prefix: `${prefix}:rate:slow:`,
          limitOf: () => 100,
          flushMs: FLUSH_MS,
        });
        store.init({ windowMs: WINDOW_MS } as Options);
        await hits(store, 'c', 10);
        // Redis busy for 900 ms: the flush's call waits behind it, times out here, then runs there.
        const busy = blocker.eval(
          "local t = redis.call('TIME'); local s = t[1] * 1000000 + t[2]; repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - s > 900000; return 1",
          0,
        );
        await new Promise((settle) => setTimeout(settle, 20));
        await store.flush();
        await busy;
        expect(Number(await check.get(counter('slow', 'c')))).toBe(10);
        await store.flush();
        expect((await store.increment('c')).totalHits).toBe(11);
        expect(Number(await check.get(counter('slow', 'c')))).toBe(11);
      } finally {
        slow.disconnect();
        blocker.disconnect();
        check.disconnect();
        await own.stop();
      }
    });
  });

  describe('across processes', () => {
    it("asks Redis again when its last read is two flush intervals old, and so sees the other's hits", async () => {
      const clock = steppingClock();
      const [a, b] = [storeOf('stale', 1000, clock), storeOf('stale', 1000, clock)];
      await a.increment('c');
      await hits(b, 'c', 10);
      await b.flush();
      expect((await a.increment('c')).totalHits).toBe(2); // fresh: decided here
      clock.advance(2 * FLUSH_MS);
      expect((await a.increment('c')).totalHits).toBe(13);
    });

    it('share one limit, over by at most half the limit for the other process', async () => {
      const limit = 20;
      const [a, b] = [storeOf('shared', limit), storeOf('shared', limit)];
      let admitted = 0;
      for (let i = 0; i < 2 * limit; i++) {
        const { totalHits } = await (i % 2 === 0 ? a : b).increment('c');
        if (totalHits <= limit) admitted++;
      }
      expect(admitted).toBeGreaterThanOrEqual(limit);
      expect(admitted).toBeLessThanOrEqual(limit + limit / 2);
      await Promise.all([a.flush(), b.flush()]);
      expect(await redis.get(counter('shared', 'c'))).toBe(String(2 * limit));
    });
  });
});
