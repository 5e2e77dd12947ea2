import type { RedisTarget } from '../config.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import { createRedis } from '../connections/redis-connection.ts';
import type { Strength } from '../model/records.ts';
import type { TallyColumns } from '../rating/bradley-terry.ts';
import { type StoreKeys, storeKeys } from './keys.ts';
import { botRatings, ratedTallies, savedStrengthRatings, saveStrengths } from './ratings.ts';

/**
 * What a Bradley–Terry recomputation reads and writes, on a Redis connection of its own. It is for
 * the fit's worker thread: a thread has its own event loop and cannot use the process' sockets,
 * so it opens this store from the two things it can be sent, the Redis URL and the key prefix,
 * and the parsing of hundreds of thousands of tally fields happens on its loop, not the process'.
 *
 * @example
 * const store = await RedisStrengthStore.open('redis://127.0.0.1:6379', 'arena');
 * try {
 *   const tallies = await stores.ratings.ratedTallies();
 * } finally {
 *   await store.close();
 * }
 */
export class RedisStrengthStore {
  private constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  /** Connects (waiting for Redis while it is down, as a worker's connection does). */
  static async open(target: RedisTarget, prefix: string): Promise<RedisStrengthStore> {
    const redis = createRedis(target, 'worker', { connectionName: 'reversi-arena-strength-fit' });
    // Nothing to log to in a thread: while Redis is down its commands wait (as a worker's do) and
    // the scheduler's close ends the thread; a failure to connect at all rejects `open`.
    redis.on('error', () => {});
    await redis.connect();
    return new RedisStrengthStore(redis, storeKeys(prefix));
  }

  /** Every rated result so far, as tallies per ordered pairing and outcome (see ratings.ts). */
  ratedTallies(): Promise<TallyColumns> {
    return ratedTallies(this.redis, this.keys);
  }

  /** Each bot's Elo rating, `null` for a bot with no record. */
  botRatings(ids: readonly string[]): Promise<(number | null)[]> {
    return botRatings(this.redis, this.keys, ids);
  }

  /** The rating of each saved strength, by bot id: the last fit's answer. */
  savedRatings(): Promise<Map<string, number>> {
    return savedStrengthRatings(this.redis, this.keys);
  }

  /** Replaces every bot's strength at once, with the time they were computed at. */
  saveStrengths(strengths: ReadonlyMap<string, Strength>, computedAt: number): Promise<void> {
    return saveStrengths(this.redis, this.keys, strengths, computedAt);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
