import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { StartupError } from '../support/startup-error.ts';

/**
 * True when a Redis server answers PING at `url` within `timeoutMs`. The command has the timeout
 * too: on a port where something listens without speaking Redis, the PING is never answered.
 */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    // The PING is the check: ioredis's own (INFO) would wait without the command timeout.
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export class NoRedisError extends StartupError {}

/**
 * Makes sure a Redis server answers at `url`. When none does and `redis-server` is on the PATH,
 * starts one on the URL's port with its data (AOF on, `noeviction`) under `dataDir`, and returns a
 * description of what it did; otherwise throws a `NoRedisError` that says how to get one.
 */
export async function ensureRedis(url: string, dataDir: string): Promise<string | null> {
  if (await redisAnswers(url)) return null;
  const parsed = new URL(url);
  const host = parsed.hostname || '127.0.0.1';
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) {
    throw new NoRedisError(
      `No Redis answers at ${url}, and it is not a local address this service could start one on.`,
    );
  }
  if (spawnSync('redis-server', ['--version']).error) {
    throw new NoRedisError(
      `No Redis answers at ${url} and redis-server is not installed. Install Redis 7 (apt-get install redis-server), ` +
        'run `docker compose up redis`, or point REDIS_URL at a running server.',
    );
  }
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const port = parsed.port || '6379';
  const child = spawn(
    'redis-server',
    [
      '--port',
      port,
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--maxmemory-policy',
      'noeviction',
      '--daemonize',
      'yes',
      '--logfile',
      'redis.log',
      '--pidfile',
      `${dir}/redis.pid`,
    ],
    { stdio: 'ignore' },
  );
  await new Promise((done) => child.on('exit', done));
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await redisAnswers(url, 200)) return `started redis-server on port ${port} with data under ${dir}`;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new NoRedisError(
    `Started redis-server on port ${port}, but it does not answer; see ${dir}/redis.log.`,
  );
}
