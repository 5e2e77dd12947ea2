import { Cluster } from 'ioredis';
import type { RedisClient } from '../connections/redis-connection.ts';

/**
 * Deletes every key under `<prefix>:` (a test's, a benchmark's or a simulation's throwaway
 * namespace), scanning in batches so a large namespace never blocks Redis.
 */
export async function deleteKeysUnder(redis: RedisClient, prefix: string): Promise<void> {
  // A cluster's keys are spread over its primaries: each is scanned.
  if (redis instanceof Cluster) {
    await Promise.all(redis.nodes('master').map((node) => deleteKeysUnder(node, prefix)));
    return;
  }
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}
