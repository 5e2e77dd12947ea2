import type { Redis } from 'ioredis';

/**
 * Deletes every key under `<prefix>:` (a test's, a benchmark's or a simulation's throwaway
 * namespace), scanning in batches so a large namespace never blocks Redis.
 */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}
