import { randomBytes, randomUUID } from 'node:crypto';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { systemClock } from '../../src/clock.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import { BullMatchQueue } from '../../src/queue/match-queue.ts';
import { deleteKeysUnder } from '../../src/store/maintenance.ts';
import { createRedis } from '../../src/store/redis-connection.ts';
import { RedisStore } from '../../src/store/redis-store.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Harness {
  readonly app: Express;
  readonly config: Config;
  readonly store: RedisStore;
  readonly queue: BullMatchQueue;
  readonly redis: Redis;
  readonly prefix: string;
  close(): Promise<void>;
}

/**
 * An arena app on the real Redis under a fresh `test-<uuid>` prefix, validating every response
 * against openapi.yaml. `env` overrides configuration.
 */
export async function createHarness(env: Record<string, string> = {}): Promise<Harness> {
  const prefix = `test-${randomUUID()}`;
  const config = loadConfig({
    REDIS_URL,
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN,
    ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
    OPENAPI_VALIDATE_RESPONSES: 'true',
    LOG_LEVEL: 'error',
    ...env,
  });
  const redis = createRedis(config.redis.url, 'api');
  await redis.connect();
  const store = new RedisStore(redis, prefix);
  const queue = new BullMatchQueue(redis, prefix);
  const app = createApp({
    config,
    store,
    queue,
    redis,
    clock: systemClock,
    random: (size) => randomBytes(size),
    logger: pino({ level: config.logLevel }),
    registry: new Registry(),
  });
  return {
    app,
    config,
    store,
    queue,
    redis,
    prefix,
    async close() {
      await queue.close();
      await store.close();
      await deleteKeysUnder(redis, prefix);
      await redis.quit();
    },
  };
}
