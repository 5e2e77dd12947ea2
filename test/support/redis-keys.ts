import type { RedisClient } from '../../src/connections/redis-connection.ts';
import { scanBatches } from '../../src/redis/maintenance.ts';

/**
 * Every key matching `pattern`, sorted, read with SCAN in batches: KEYS would block the Redis that
 * every test file (and any worker they run) shares while it walks the whole keyspace.
 *
 * @example
 * const rateKeys = await scanKeys(h.redis, `${rateLimitPrefix(h.prefix)}:rate:*`);
 */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  // SCAN may return a key more than once while the keyspace is rehashed.
  const keys = new Set<string>();
  for await (const batch of scanBatches(redis, pattern)) for (const key of batch.keys) keys.add(key);
  return [...keys].sort();
}
