import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { askServer, freePort, throwawayServerArgs, until } from './private-redis.ts';
import { ServerProcesses } from './server-processes.ts';

export const SENTINEL_MASTER = 'arena';

/**
 * A primary, one replica and three sentinels of the test's own, on loopback: what an operator runs
 * for Redis with automatic failover. The sentinels judge the primary down after `downAfterMs`
 * without an answer (a second by default), so `killPrimary` (kill -9) is followed by a promotion
 * within a few seconds. A test that does not fail over gives a longer time: on a loaded machine a
 * primary can miss a second's pings, and a failover nobody asked for drops every connection.
 */
export class SentinelSet {
  readonly #servers = new ServerProcesses('sentinel-set');

  private constructor(
    readonly primaryPort: number,
    readonly replicaPort: number,
    readonly sentinelPorts: readonly number[],
  ) {}

  /** The settings the arena takes to find the primary through these sentinels. */
  get env(): Record<string, string> {
    return {
      REDIS_SENTINELS: this.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      REDIS_SENTINEL_MASTER: SENTINEL_MASTER,
    };
  }

  static async start(options: { downAfterMs?: number } = {}): Promise<SentinelSet> {
    const set = await SentinelSet.allocate();
    await set.form(options);
    return set;
  }

  /** A set with its ports chosen (its `env` known) and nothing started yet: `form` starts it. */
  static async allocate(): Promise<SentinelSet> {
    const ports = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    return new SentinelSet(ports[0]!, ports[1]!, ports.slice(2));
  }

  /** Starts the servers and sentinels; a set that does not form leaves no server behind. */
  async form({ downAfterMs = 1000 } = {}): Promise<void> {
    try {
      this.#server(this.primaryPort, []);
      this.#server(this.replicaPort, ['--replicaof', '127.0.0.1', String(this.primaryPort)]);
      await until(
        async () =>
          (await this.info(this.replicaPort, 'replication').catch(() => '')).includes(
            'master_link_status:up',
          ),
        'the replica to sync',
      );
      for (const port of this.sentinelPorts) {
        const conf = join(this.#servers.dir, `sentinel-${port}.conf`);
        writeFileSync(
          conf,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${this.primaryPort} 2`,
            `sentinel down-after-milliseconds ${SENTINEL_MASTER} ${downAfterMs}`,
            `sentinel failover-timeout ${SENTINEL_MASTER} ${Math.max(5000, 2 * downAfterMs)}`,
            `sentinel parallel-syncs ${SENTINEL_MASTER} 1`,
            '',
          ].join('\n'),
        );
        this.#servers.spawn(port, [conf, '--sentinel']);
      }
      // A failover needs the sentinels to know the replica and each other (hellos every 2 s).
      await until(
        async () => {
          for (const port of this.sentinelPorts) {
            const [replicas, others] = await askServer(port, async (r) => [
              (await r.call('SENTINEL', 'REPLICAS', SENTINEL_MASTER)) as unknown[],
              (await r.call('SENTINEL', 'SENTINELS', SENTINEL_MASTER)) as unknown[],
            ]).catch(() => [[], []]);
            if ((replicas?.length ?? 0) < 1 || (others?.length ?? 0) < 2) return false;
          }
          return true;
        },
        'the sentinels to know the replica and each other',
        20_000,
      );
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** The port the sentinels name as the primary now. */
  async primary(): Promise<number> {
    const [, port] = (await askServer(this.sentinelPorts[0]!, (r) =>
      r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER),
    )) as [string, string];
    return Number(port);
  }

  /** A section of INFO from the server on `port`. */
  info(port: number, section: string): Promise<string> {
    return askServer(port, (r) => r.info(section));
  }

  /** Waits until the replica has every write the primary has. */
  async replicated(): Promise<void> {
    const offset = (text: string, field: string) =>
      Number(new RegExp(`${field}:(\\d+)`).exec(text)?.[1] ?? -1);
    await until(async () => {
      const primary = offset(await this.info(this.primaryPort, 'replication'), 'master_repl_offset');
      const replica = offset(await this.info(this.replicaPort, 'replication'), 'slave_repl_offset');
      return replica >= primary;
    }, 'the replica to catch up');
  }

  /** Kills the primary with SIGKILL: no shutdown, no last write. */
  killPrimary(): Promise<void> {
    return this.#servers.kill(this.primaryPort);
  }

  /** Kills sentinel `index` (of `sentinelPorts`) with kill -9: a sentinel's machine gone. */
  killSentinel(index: number): Promise<void> {
    return this.#servers.kill(this.sentinelPorts[index]!);
  }

  stop(): Promise<void> {
    return this.#servers.stop();
  }

  #server(port: number, args: string[]): void {
    this.#servers.spawn(port, [...throwawayServerArgs(port), ...args]);
  }
}
