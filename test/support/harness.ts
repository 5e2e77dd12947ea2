import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import { pino } from 'pino';
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../src/config.ts';
import type { RedisClient } from '../../src/connections/redis-connection.ts';
import type { BullMatchQueue } from '../../src/queue/match-queue.ts';
import { deleteKeysUnder } from '../../src/redis/maintenance.ts';
import type { RedisStores } from '../../src/redis/redis-stores.ts';
import { type Clock, systemClock } from '../../src/support/clock.ts';
import { startApi } from '../../src/wiring/api-process.ts';
import { announced } from './announcement.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Harness {
  readonly app: Express;
  readonly config: Config;
  readonly stores: RedisStores;
  readonly queue: BullMatchQueue;
  readonly redis: RedisClient;
  readonly prefix: string;
  /** The arena's time, the system's unless the test drives it (see `steppingClock`). */
  readonly clock: Clock;
  /** Closes the arena and deletes its keys, unless `keepKeys` (a test that reads them afterwards). */
  close(options?: { readonly keepKeys?: boolean }): Promise<void>;
}

/** A clock a test moves by hand: it starts at the system's time and stays until told. */
export function steppingClock(start = Date.now()): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}

/**
 * An arena app on the real Redis under a fresh `test-<uuid>` prefix, validating every response
 * against openapi.yaml. `env` overrides configuration; `clock` is the arena's time (the
 * runner, the scheduler and the match service of test/support take it from the harness).
 */
export async function createHarness(
  env: Record<string, string> = {},
  { clock = systemClock }: { readonly clock?: Clock } = {},
): Promise<Harness> {
  const prefix = `test-${randomUUID()}`;
  const config = loadConfig({
    REDIS_URL,
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN,
    ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
    OPENAPI_VALIDATE_RESPONSES: 'true',
    LOG_LEVEL: 'error',
    // Tests register many bots from one address and pair bots by hand; fair-play tests set their own.
    RATE_LIMIT_REGISTRATIONS_PER_HOUR: '100000',
    RATE_LIMIT_ACCOUNTS_PER_HOUR: '100000',
    // Every request of a file comes from one address: at the production 300 a minute a test that
    // reads a match often met 429s. Only the rate-limit tests (ops, fair-play/limits) set limits.
    RATE_LIMIT_PER_IP: '1000000',
    RATE_LIMIT_PER_TOKEN: '1000000',
    // Likewise every challenge is from one address: the per-address share of a bot's challenges.
    MAX_CHALLENGES_AGAINST_BOT_PER_ADDRESS: '1000',
    MATCHMAKING_ENABLED: 'false',
    // Scheduled events only where a test asks for them (test/tournaments/events.test.ts).
    EVENTS: 'off',
    // Every test bot is registered from loopback and served there: the tests of matchmaking pair them.
    ALLOW_SAME_OPERATOR_GAMES: 'true',
    HOUSE_BOTS: 'false',
    // Tests read the leaderboard right after a match: no staleness.
    LEADERBOARD_CACHE_MS: '0',
    SPECTATOR_STATE_CACHE_MS: '0',
    // Workers play on the process' own thread, here and in spawned workers (worker-process.ts);
    // test/match/pool-threads.test.ts tests the threads.
    WORKER_THREADS: '0',
    // The one solo layout key of the test processes (vitest.config.ts): the solo game takes one a process.
    SOLO_SECRET: process.env.SOLO_SECRET!,
    // The Redis Cluster or Sentinel set of a topology project (test/support/topology-setup.ts).
    ...(inject('redisTopology') ?? {}),
    ...env,
  });
  // A topology project's set may still be forming (test/support/topology-setup.ts).
  const topologyFormed = inject('redisTopologyFormed');
  if (topologyFormed) await announced(topologyFormed, 25_000);
  const api = await startApi(config, pino({ level: config.logLevel }), () => false, { clock });
  return {
    app: api.app,
    config,
    stores: api.stores,
    queue: api.queue,
    redis: api.redis,
    // On a cluster the prefix is a hash tag (`{test-…}`): the keys are under the config's.
    prefix: config.redis.prefix,
    clock,
    async close({ keepKeys = false } = {}) {
      if (!keepKeys) await deleteKeysUnder(api.redis, config.redis.prefix);
      await api.close();
    },
  };
}
