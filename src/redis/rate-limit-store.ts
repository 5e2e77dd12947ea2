import { createHash } from 'node:crypto';
import type { Store } from 'express-rate-limit';
import { RedisStore as RateLimitRedisStore, type RedisReply } from 'rate-limit-redis';
import type { RedisClient } from '../connections/redis-connection.ts';
import { BatchedRateLimitStore } from './batched-rate-limit-store.ts';
import { type RateLimiter, storeKeys } from './keys.ts';

export type { RateLimiter };

/**
 * Asks for a limiter's counts to be kept in the process and sent to Redis in batches (see
 * BatchedRateLimitStore for the bounds), for a limiter met on every request. `limitOf` names the
 * limit of a client's key: near it, requests are decided at Redis.
 */
export interface RateLimitBatching {
  readonly limitOf: (key: string) => number;
}

/**
 * Sends rate-limit-redis' commands through ioredis. Its scripts are kept here and run with EVALSHA,
 * falling back to EVAL: the limiter then never depends on a SCRIPT LOAD made at start-up, so it
 * works when Redis was down when the app started and after Redis restarts empty.
 */
function scriptSafeSender(redis: RedisClient) {
  const scripts = new Map<string, string>();
  return async (command: string, ...args: string[]): Promise<RedisReply> => {
    if (command.toUpperCase() === 'SCRIPT' && args[0]?.toUpperCase() === 'LOAD' && args[1] !== undefined) {
      const sha = createHash('sha1').update(args[1]).digest('hex');
      scripts.set(sha, args[1]);
      return sha;
    }
    if (command.toUpperCase() === 'EVALSHA' && args[0] !== undefined) {
      const [sha, ...rest] = args;
      try {
        return (await redis.call('EVALSHA', sha, ...rest)) as RedisReply;
      } catch (error) {
        const script = scripts.get(sha);
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT')) || script === undefined)
          throw error;
        return (await redis.call('EVAL', script, ...rest)) as RedisReply;
      }
    }
    return (await redis.call(command, ...args)) as RedisReply;
  };
}

/**
 * Makes the counters' store of each rate limiter on Redis, under the store's prefix, so every API
 * process shares the limits. A new store per call: express-rate-limit wants one per limiter.
 * Without `batching` every request is counted at Redis, exactly (rate-limit-redis); with it, in the
 * process and sent in batches, under the same keys and TTLs.
 *
 * @example
 * const rateLimitStore = redisRateLimitStores(redis, 'arena');
 * rateLimit({ store: rateLimitStore('registrations'), … });
 * rateLimit({ store: rateLimitStore('requests', { limitOf: () => 600 }), … });
 */
export function redisRateLimitStores(redis: RedisClient, prefix: string): RedisRateLimitStores {
  const keys = storeKeys(prefix);
  const sendCommand = scriptSafeSender(redis);
  const batched: BatchedRateLimitStore[] = [];
  const make = (limiter: RateLimiter, batching?: RateLimitBatching): Store => {
    if (batching === undefined)
      return new RateLimitRedisStore({ sendCommand, prefix: keys.rateLimit(limiter) });
    const store = new BatchedRateLimitStore({
      redis,
      prefix: keys.rateLimit(limiter),
      limitOf: batching.limitOf,
    });
    batched.push(store);
    return store;
  };
  return Object.assign(make, {
    shutdown: async () => {
      await Promise.all(batched.map((store) => store.shutdown()));
    },
  });
}

/** The limiters' stores, and `shutdown`: sends the hits the batched ones hold, before Redis closes. */
export type RedisRateLimitStores = ((limiter: RateLimiter, batching?: RateLimitBatching) => Store) & {
  shutdown(): Promise<void>;
};
