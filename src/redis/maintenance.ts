import type { Redis } from 'ioredis';
import { bullPrefix, rateLimitPrefix, signInPrefix } from '../config.ts';
import { primariesOf, type RedisClient } from '../connections/redis-connection.ts';

/**
 * The keys matching `pattern`, a SCAN batch at a time, each with the server that holds it: one
 * server's, or every primary's of a cluster (a cluster client would scan one node, any). Batches
 * keep a large namespace from blocking Redis; a key may come twice while the keyspace is rehashed.
 */
export async function* scanBatches(
  redis: RedisClient,
  pattern: string,
): AsyncGenerator<{ readonly server: Redis; readonly keys: string[] }> {
  for (const server of primariesOf(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) yield { server, keys };
    } while (cursor !== '0');
  }
}

/**
 * The patterns of every key an arena under `prefix` writes: its own, and its queue's, rate limits'
 * and sign-ins' where those have hash tags of their own (on a cluster: see `bullPrefix`,
 * `rateLimitPrefix`, `signInPrefix`).
 */
export function arenaKeyPatterns(prefix: string): string[] {
  const apart = [bullPrefix(prefix), rateLimitPrefix(prefix), signInPrefix(prefix)].filter(
    (other) => other !== prefix && !other.startsWith(`${prefix}:`),
  );
  return [`${prefix}:*`, ...apart.map((other) => `${other}:*`)];
}

/**
 * Deletes every key of the arena under `prefix` (a test's, a benchmark's or a simulation's
 * throwaway namespace), scanning in batches so a large namespace never blocks Redis.
 */
export async function deleteKeysUnder(redis: RedisClient, prefix: string): Promise<void> {
  for (const pattern of arenaKeyPatterns(prefix))
    for await (const { server, keys } of scanBatches(redis, pattern)) await server.unlink(...keys);
}
