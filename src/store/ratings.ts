import type { Redis } from 'ioredis';
import { idOfNameMember, type StoreKeys } from './keys.ts';
import { readBots } from './read.ts';
import type { BotRecord, Strength } from './records.ts';
import type { LeaderboardRow } from './store.ts';

/** The leaderboard, the rated results and the Bradley–Terry strengths, on Redis. */

export async function leaderboardPage(redis: Redis, keys: StoreKeys, offset: number, limit: number) {
  const [ids, total, computedAt] = await Promise.all([
    redis.zrange(keys.leaderboard, offset, offset + limit - 1),
    redis.zcard(keys.leaderboard),
    redis.get(keys.strengthComputedAt),
  ]);
  const [records, strengths] = await Promise.all([
    readBots(redis, keys, ids),
    ids.length === 0 ? Promise.resolve([]) : redis.hmget(keys.strength, ...ids),
  ]);
  const rows: LeaderboardRow[] = [];
  records.forEach((bot, i) => {
    const strength = strengths[i];
    if (bot)
      rows.push({
        rank: offset + i + 1,
        bot,
        strength: strength ? (JSON.parse(strength) as Strength) : null,
      });
  });
  return { rows, total, strengthComputedAt: computedAt === null ? null : Number(computedAt) };
}

export async function ratedResults(redis: Redis, keys: StoreKeys) {
  const entries = await redis.lrange(keys.ratedResults, 0, -1);
  return entries.map((entry) => {
    const [black = '', white = '', score = '0'] = entry.split(' ');
    return { black, white, score: Number(score) as 0 | 0.5 | 1 };
  });
}

export async function saveStrengths(
  redis: Redis,
  keys: StoreKeys,
  strengths: ReadonlyMap<string, Strength>,
  computedAt: number,
): Promise<void> {
  const multi = redis.multi().del(keys.strength);
  if (strengths.size > 0) {
    multi.hset(keys.strength, Object.fromEntries([...strengths].map(([id, s]) => [id, JSON.stringify(s)])));
  }
  await multi.set(keys.strengthComputedAt, String(computedAt)).exec();
}

export async function addColorBalance(redis: Redis, keys: StoreKeys, changes: ReadonlyMap<string, number>) {
  const multi = redis.multi();
  for (const [id, change] of changes) multi.hincrby(keys.colorBalance, id, change);
  await multi.exec();
}

export async function colorBalances(
  redis: Redis,
  keys: StoreKeys,
  ids: readonly string[],
): Promise<number[]> {
  if (ids.length === 0) return [];
  return (await redis.hmget(keys.colorBalance, ...ids)).map((value) => Number(value ?? 0));
}

export async function activeMatchCounts(
  redis: Redis,
  keys: StoreKeys,
  ids: readonly string[],
): Promise<number[]> {
  const pipeline = redis.pipeline();
  for (const id of ids) {
    pipeline.zcard(keys.botMatches(id, 'queued'));
    pipeline.zcard(keys.botMatches(id, 'running'));
  }
  const counts = ((await pipeline.exec()) ?? []).map(([error, count]) => {
    if (error) throw error;
    return Number(count);
  });
  return ids.map((_, i) => (counts[2 * i] ?? 0) + (counts[2 * i + 1] ?? 0));
}

export async function activeBots(redis: Redis, keys: StoreKeys): Promise<BotRecord[]> {
  const members = await redis.zrange(keys.activeBotsByName, 0, -1);
  const records = await readBots(redis, keys, members.map(idOfNameMember));
  return records.filter((bot): bot is BotRecord => bot !== null && bot.status === 'active');
}
