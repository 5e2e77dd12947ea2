import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplicaWait } from '../../src/redis/replica-wait.ts';
import { REDIS_URL } from '../support/harness.ts';

let redis: Redis;
beforeAll(() => {
  redis = new Redis(REDIS_URL);
});
afterAll(() => redis.quit());

describe('ReplicaWait', () => {
  it('waits for replicas; when they fall short it says so, then stops waiting for ten seconds', async () => {
    // The test's Redis has no replica: every WAIT for one times out with 0 acknowledgements.
    let now = 1_000_000;
    const shortfalls: number[] = [];
    const wait = new ReplicaWait(
      redis,
      'arena',
      { replicas: 1, timeoutMs: 50 },
      (n) => shortfalls.push(n),
      () => now,
    );
    await wait.afterCommit();
    expect(shortfalls).toEqual([0]);

    await wait.afterCommit();
    now += 9_999;
    await wait.afterCommit();
    expect(shortfalls).toEqual([0]);

    now += 1;
    await wait.afterCommit();
    expect(shortfalls).toEqual([0, 0]);
  });

  it('never waits when no replica is asked for', async () => {
    const shortfalls: number[] = [];
    const wait = new ReplicaWait(redis, 'arena', { replicas: 0, timeoutMs: 50 }, (n) => shortfalls.push(n));
    await wait.afterCommit();
    expect(shortfalls).toEqual([]);
  });
});
