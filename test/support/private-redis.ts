import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { redisAnswers } from '../../src/connections/local-redis.ts';

/**
 * A free TCP port on loopback for a server a test starts and names the port of (a Redis, a starter
 * bot). Not one the kernel hands out for port 0: that range is also where outgoing connections take
 * their local ports, and with files running side by side one of them took a port between its check
 * and its server's start ("Address already in use"). So the port is drawn below that range, where
 * only servers told their port listen, and low enough that a cluster node's bus (port + 10000) is
 * below it too.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = TOLD_PORTS.from + Math.floor(Math.random() * (TOLD_PORTS.to - TOLD_PORTS.from));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port in ${TOLD_PORTS.from}-${TOLD_PORTS.to} on 127.0.0.1`);
}
/** Below Linux's default ephemeral range (32768-60999), with room for a cluster bus port above. */
const TOLD_PORTS = { from: 12_000, to: 22_000 } as const;

/** Asks the server on loopback `port` one question, on a connection of its own that never retries. */
export async function askServer<T>(port: number, question: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await question(redis);
  } finally {
    redis.disconnect();
  }
}

/** Whether `port` on loopback can be listened on now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** The arguments of a redis-server of a test's own on `port`: loopback only, nothing written to disk. */
export function throwawayServerArgs(port: number): string[] {
  return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
}

/** A throwaway redis-server of the test's own, which the test may stop and start again. */
export class PrivateRedis {
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    return redis;
  }

  /** Starts it unless it answers already: a cleanup may call this whether or not a test stopped it. */
  async start(): Promise<void> {
    // A second redis-server forks into the background before it binds the port; had it been started
    // beside a running one, it took the port as soon as `stop()` freed it, and stayed behind.
    if (await redisAnswers(this.url, 200)) return;
    const child = spawn('redis-server', [...throwawayServerArgs(this.port), '--daemonize', 'yes'], {
      stdio: 'ignore',
    });
    await new Promise((done) => child.on('exit', done));
    await until(() => redisAnswers(this.url, 200), `redis on ${this.port}`);
  }

  /**
   * Kills the server (kill -9), as an outage comes: a server told to SHUTDOWN still took a
   * reconnection for a moment, and its clients met two outages for one (test/http/process.test.ts).
   */
  async stop(): Promise<void> {
    const info = await askServer(this.port, (redis) => redis.info('server')).catch(() => '');
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    if (pid > 0) process.kill(pid, 'SIGKILL');
    await until(async () => !(await redisAnswers(this.url, 200)), `redis on ${this.port} to stop`);
  }
}

export { until };

/**
 * Resolves once `client` is in `state`: at once when it is, else at its next `ready` or `close`
 * event. Not `events.once`, which rejects on the `error` events an outage brings between.
 */
export function connectionIs(
  client: { readonly status: string; once(event: string, listener: () => void): unknown },
  state: 'ready' | 'down',
): Promise<void> {
  const now = state === 'ready' ? client.status === 'ready' : client.status !== 'ready';
  if (now) return Promise.resolve();
  return new Promise((resolve) => client.once(state === 'ready' ? 'ready' : 'close', () => resolve()));
}
