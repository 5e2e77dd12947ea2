import { Cluster, type Redis } from 'ioredis';
import { loadConfig } from '../src/config.ts';
import { createRedis, type RedisClient } from '../src/connections/redis-connection.ts';
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
  /** CLIENT LIST of every server (each primary of a cluster), one line a connection. */
  clientLines(admin: RedisClient): Promise<string[]>;
  stop(): Promise<void>;
}

export async function benchRedis({ nice, prefix }: { nice?: number; prefix: string }): Promise<BenchRedis> {
  const nodes = process.env.REDIS_CLUSTER_NODES;
  if (nodes === undefined || nodes.trim() === '') {
    const server = await privateRedis({ nice });
    return {
      env: { REDIS_URL: server.url, REDIS_AUTOSTART: 'false' },
      clientLines: async (admin) => listed(await admin.call('CLIENT', 'LIST')),
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
    async clientLines(admin) {
      const lines = await Promise.all(serversOf(admin).map(async (server) => server.call('CLIENT', 'LIST')));
      return lines.flatMap(listed);
    },
    async stop() {
      await clean();
      cleaner.disconnect();
    },
  };
}

function listed(reply: unknown): string[] {
  return String(reply)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** The servers behind a connection: itself, or each primary of a cluster. */
export function serversOf(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}
