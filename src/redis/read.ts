import type { RedisClient } from '../connections/redis-connection.ts';
import type { BotRecord } from '../model/records.ts';
import { decodeBot } from './codec.ts';
import type { StoreKeys } from './keys.ts';

/** Reads many hashes in one round trip (a pipeline of HGETALL), in the order of `keys`. */
export async function readHashes(
  redis: RedisClient,
  keys: readonly string[],
): Promise<Record<string, string>[]> {
  if (keys.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.hgetall(key);
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, hash]) => {
    if (error) throw error;
    return hash as Record<string, string>;
  });
}

/** The same `fields` of many hashes in one round trip (null where one is missing). */
export async function readHashFields(
  redis: RedisClient,
  keys: readonly string[],
  fields: readonly string[],
): Promise<(string | null)[][]> {
  if (keys.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.hmget(key, ...fields);
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, values]) => {
    if (error) throw error;
    return values as (string | null)[];
  });
}

/** Many bots in one round trip; `null` where there is no such bot. */
export async function readBots(
  redis: RedisClient,
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
