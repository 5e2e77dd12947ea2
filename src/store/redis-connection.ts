import { Redis, type RedisOptions } from 'ioredis';

/**
 * Redis connections by role.
 * - `api`: fails fast (no offline queue, a command timeout), so a request answers 503 at once
 *   while Redis is down instead of hanging; it keeps reconnecting in the background.
 * - `worker`: BullMQ workers and blocking reads need `maxRetriesPerRequest: null` and wait for
 *   Redis to come back.
 */
export function createRedis(url: string, role: 'api' | 'worker', extra: RedisOptions = {}): Redis {
  const common: RedisOptions = {
    connectionName: `reversi-arena-${role}`,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2000),
    lazyConnect: true,
  };
  const roleOptions: RedisOptions =
    role === 'api'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 2000 }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
  return new Redis(url, { ...common, ...roleOptions, ...extra });
}
