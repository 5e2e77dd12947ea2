import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createRedis, type RedisClient } from '../../src/connections/redis-connection.ts';
import { SentinelSet } from '../support/sentinel-set.ts';

describe('a sentinel down', { timeout: 60_000 }, () => {
  let set: SentinelSet;
  let redis: RedisClient;
  beforeAll(async () => {
    // No failover wanted: a primary on a busy machine may miss a second's pings.
    set = await SentinelSet.start({ downAfterMs: 30_000 });
    redis = createRedis(loadConfig(set.env).redis.target, 'worker');
    // The connection's own errors are not this test's subject (it reconnects on purpose below).
    redis.on('error', () => {});
    const subscribed = once(redis, 'failoverSubscribed');
    await redis.connect();
    await subscribed;
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await set?.stop();
  });

  it('leaves stderr quiet: the failover detector’s subscriber on it fails without an unhandled error', async () => {
    // The detector's subscriber on the killed sentinel notices the close and schedules its retry.
    const noticed = once(redis, 'sentinelReconnecting');
    await set.killSentinel(0);
    await noticed;
    const printed = vi.spyOn(console, 'error');
    try {
      // Connecting again subscribes afresh on every sentinel: the one on the dead sentinel is refused
      // at once (ECONNREFUSED), then schedules its retry, which ioredis tells as below.
      const refused = once(redis, 'sentinelReconnecting');
      redis.disconnect(true);
      await refused;
      await redis.ping();
      const unhandled = printed.mock.calls.filter((call) =>
        String(call[0]).includes('Unhandled error event'),
      );
      expect(unhandled).toEqual([]);
    } finally {
      printed.mockRestore();
    }
  });
});
