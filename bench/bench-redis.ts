import { loadConfig } from '../src/config.ts';
import { createRedis, primariesOf, type RedisClient } from '../src/connections/redis-connection.ts';
import { deleteKeysUnder } from '../src/redis/maintenance.ts';
import { privateRedis } from './private-redis.ts';

/**
 * The Redis a bench runs on: a redis-server of its own on a free port (its CLIENT LIST this run's
 * alone), or, with REDIS_CLUSTER_NODES set, that cluster (README "Running on more than one
 * machine"), where the bench's keys are deleted before and after.
 */
export interface BenchRedis {
  /** The settings that point a config at it. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

export async function benchRedis({ nice, prefix }: { nice?: number; prefix: string }): Promise<BenchRedis> {
  const nodes = process.env.REDIS_CLUSTER_NODES;
  if (nodes === undefined || nodes.trim() === '') {
    const server = await privateRedis({ nice });
    return {
      env: { REDIS_URL: server.url, REDIS_AUTOSTART: 'false' },
      stop: async () => server.stop(),
    };
  }
  const env = { REDIS_CLUSTER_NODES: nodes, REDIS_AUTOSTART: 'false' };
  const { redis } = loadConfig({ ...env, REDIS_PREFIX: prefix });
  const cleaner = createRedis(redis.target, 'worker', { connectionName: 'bench-admin' });
  await cleaner.connect();
  const clean = () => deleteKeysUnder(cleaner, redis.prefix);
  await clean();
  return {
    env,
    async stop() {
      await clean();
      cleaner.disconnect();
    },
  };
}

/** CLIENT LIST of every server behind `admin` (each primary of a cluster), one line a connection. */
export async function clientLines(admin: RedisClient): Promise<string[]> {
  const lists = await Promise.all(primariesOf(admin).map((server) => server.call('CLIENT', 'LIST')));
  return lists.flatMap((list) =>
    String(list)
      .split('\n')
      .filter((line) => line.trim() !== ''),
  );
}
