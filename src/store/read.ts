import type { Redis } from 'ioredis';
import { decodeBot } from './codec.ts';
import type { StoreKeys } from './keys.ts';
import type { BotRecord } from './records.ts';

/**
 * Reads many hashes in one round trip (a pipeline of HGETALL), in the order of `keys`. With `watch`
 * (on a transaction's own connection) it WATCHes them first, in the same round trip: the commands
 * run in order, so the reads come after the WATCH.
 */
export async function readHashes(
  redis: Redis,
  keys: readonly string[],
  options: { readonly watch?: boolean } = {},
): Promise<Record<string, string>[]> {
  if (keys.length === 0) return [];
  const pipeline = redis.pipeline();
  if (options.watch) pipeline.watch(...keys);
  for (const key of keys) pipeline.hgetall(key);
  const results = (await pipeline.exec()) ?? [];
  const replies = results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
  return replies.slice(options.watch ? 1 : 0) as Record<string, string>[];
}

/** Many bots in one round trip; `null` where there is no such bot. */
export async function readBots(
  redis: Redis,
  keys: StoreKeys,
  ids: readonly string[],
): Promise<(BotRecord | null)[]> {
  return (
    await readHashes(
      redis,
      ids.map((id) => keys.bot(id)),
    )
  ).map(decodeBot);
}
