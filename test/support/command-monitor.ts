import { Redis } from 'ioredis';
import type { RedisClient } from '../../src/connections/redis-connection.ts';

/** One command as MONITOR tells it: its words (the command name first) and who ran it (`lua` for a script). */
export type CommandListener = (args: string[], source: string) => void;

/**
 * The commands a redis-server runs, as MONITOR tells them, for tests that count what the arena asks
 * of Redis. Use it on a redis-server of the test file's own (see PrivateRedis): MONITOR sees every
 * client's commands, and watching them costs every client of the server.
 *
 * @example
 * const monitor = await CommandMonitor.start(h.redis);
 * let reads = 0;
 * const stop = monitor.listen((args) => { if (args[0] === 'hgetall') reads++; });
 * await request(h.app).get('/v1/…');
 * await monitor.caughtUp();
 * stop();
 */
export class CommandMonitor {
  readonly #listeners = new Set<CommandListener>();

  private constructor(
    private readonly redis: RedisClient,
    private readonly connection: RedisClient,
  ) {
    connection.on('monitor', (_time: string, args: string[], source: string) => {
      for (const listener of this.#listeners) listener(args, source);
    });
  }

  /** Starts monitoring the server `redis` is connected to (on a connection of its own). */
  static async start(redis: RedisClient): Promise<CommandMonitor> {
    if (!(redis instanceof Redis)) throw new Error('MONITOR watches one server, not a cluster');
    return new CommandMonitor(redis, await redis.monitor());
  }

  /** Tells `listener` of each command from now on, until the answered function is called. */
  listen(listener: CommandListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Resolves once every command Redis ran before this call has been told to the listeners. */
  async caughtUp(): Promise<void> {
    const marker = `caught-up-${Math.random()}`;
    let stop = (): void => {};
    const seen = new Promise<void>((resolve) => {
      stop = this.listen((args) => {
        if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) resolve();
      });
    });
    try {
      // MONITOR tells commands in the order Redis runs them: once it told this one, it told all before.
      await this.redis.echo(marker);
      await seen;
    } finally {
      stop();
    }
  }

  stop(): void {
    this.connection.disconnect();
  }
}
