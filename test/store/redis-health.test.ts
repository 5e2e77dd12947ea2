import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisHealth } from '../../src/redis/redis-upkeep.ts';
import { REDIS_URL } from '../support/harness.ts';

describe('RedisHealth.isOutage', () => {
  it("tells a command lost with its connection (a 503) from Redis' answer to a bad command (a 500)", async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
    redis.on('error', () => {});
    await redis.connect();
    const health = new RedisHealth(redis);
    expect(health.health()).toBe('up');

    const refused = await redis.call('NO-SUCH-COMMAND').catch((error: unknown) => error);
    expect(health.isOutage(refused)).toBe(false);

    // A command in flight when its connection goes: ioredis rejects it with "Connection is closed.",
    // and by the time the API hears of it the connection (a cluster's slot) may be ready again.
    const blocked = redis.blpop('redis-health-test-never-pushed', 5).catch((error: unknown) => error);
    await new Promise((sent) => setTimeout(sent, 50));
    redis.disconnect();
    const lost = await blocked;
    expect((lost as Error).message).toBe('Connection is closed.');
    expect(health.isOutage(lost)).toBe(true);
    expect(health.isOutage(new Error('something else'))).toBe(false);
  });
});
