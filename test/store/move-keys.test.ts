import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/redis/keys.ts';
import { deleteKeysUnder } from '../../src/redis/maintenance.ts';
import { RedisLockStore } from '../../src/redis/redis-upkeep.ts';
import { type KeyMove, movedKey, moveKeys } from '../../src/redis/store-copy.ts';
import type { LockStore } from '../../src/store/lock-store.ts';
import { REDIS_URL } from '../support/harness.ts';
import { scanKeys } from '../support/redis-keys.ts';

let redis: Redis;
let prefix: string;
let locks: RedisLockStore;
beforeAll(() => {
  redis = new Redis(REDIS_URL);
  prefix = `test-${randomUUID()}`;
  locks = new RedisLockStore(redis, storeKeys(prefix));
});
afterAll(async () => {
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

/** `locks`, telling each time it refuses a lock: `refused(n)` resolves at the n-th refusal. */
function refusalsOf(locks: LockStore) {
  let refusals = 0;
  let told: (() => void)[] = [];
  const watched: LockStore = {
    async tryLock(name, ttlMs) {
      const release = await locks.tryLock(name, ttlMs);
      if (release === null) {
        refusals++;
        const telling = told;
        told = [];
        for (const tell of telling) tell();
      }
      return release;
    },
  };
  const refused = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (refusals >= n ? resolve() : told.push(check));
      check();
    });
  return { locks: watched, refused };
}

/** Keys under `<prefix>:<from>:` move to `<prefix>:<to>:`; the rest stay. */
function movement(name: string, from: string, to: string): KeyMove {
  return {
    name,
    pattern: `${prefix}:${from}:*`,
    renamed: (key) =>
      key.endsWith(':stays') ? undefined : `${prefix}:${to}:${key.slice(`${prefix}:${from}:`.length)}`,
  };
}

describe('moveKeys', () => {
  it('moves what it renames, with values and times to live, once', async () => {
    await redis.hset(`${prefix}:old:a`, { field: 'value' });
    await redis.set(`${prefix}:old:b`, 'expiring', 'PX', 600_000);
    await redis.set(`${prefix}:old:stays`, 'here');
    const move = movement('old-to-new', 'old', 'new');

    expect(await moveKeys(redis, prefix, move, locks)).toBe(2);
    expect(await scanKeys(redis, `${prefix}:old:*`)).toEqual([`${prefix}:old:stays`]);
    expect(await redis.hgetall(`${prefix}:new:a`)).toEqual({ field: 'value' });
    expect(await redis.get(`${prefix}:new:b`)).toBe('expiring');
    expect(await redis.pttl(`${prefix}:new:b`)).toBeGreaterThan(500_000);
    expect(await redis.pttl(`${prefix}:new:a`)).toBe(-1);
    expect(await redis.hget(movedKey(prefix), 'old-to-new')).not.toBeNull();

    // Recorded: a later run (another process starting) moves nothing, even keys written since.
    await redis.set(`${prefix}:old:c`, 'late');
    expect(await moveKeys(redis, prefix, move, locks)).toBe(0);
    expect(await redis.get(`${prefix}:old:c`)).toBe('late');
  });

  it('waits while another process moves, and then does nothing', async () => {
    await redis.set(`${prefix}:before:x`, '1');
    const move = movement('before-to-after', 'before', 'after');
    // Another process holds the move's lock, as while it moves.
    const release = await locks.tryLock(`move:${move.name}`, 60_000);
    expect(release).not.toBeNull();
    const watched = refusalsOf(locks);
    const waiting = moveKeys(redis, prefix, move, watched.locks);
    // Refused twice: it has looked again after waiting, and moved nothing meanwhile.
    await watched.refused(2);
    expect(await redis.get(`${prefix}:before:x`)).toBe('1');
    expect(await redis.exists(`${prefix}:after:x`)).toBe(0);
    // The other process records its move and lets go: this one then does nothing.
    await redis.hset(movedKey(prefix), move.name, new Date().toISOString());
    await release!();
    expect(await waiting).toBe(0);
    expect(await redis.get(`${prefix}:before:x`)).toBe('1');
  });
});
