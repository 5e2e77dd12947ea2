import { spawn } from 'node:child_process';
import type { Redis } from 'ioredis';
import { exited } from './children.ts';
import { askServer, freePort, portIsFree, throwawayServerArgs, until } from './private-redis.ts';
import { ServerProcesses } from './server-processes.ts';

/**
 * A Redis Cluster of the test's own on loopback: three primaries, each with a replica, as an
 * operator runs one. A node is judged down after `downAfterMs` without an answer (a second by
 * default), so `kill`ing a primary (kill -9) is followed by its replica's promotion within a few
 * seconds. A test that does not fail over gives a longer time, as for SentinelSet.
 */
export class RedisClusterSet {
  readonly #servers = new ServerProcesses('redis-cluster');

  private constructor(readonly ports: readonly number[]) {}

  /** The settings the arena takes to reach this cluster. */
  get env(): Record<string, string> {
    return { REDIS_CLUSTER_NODES: this.ports.map((port) => `127.0.0.1:${port}`).join(',') };
  }

  static async start(options: { downAfterMs?: number } = {}): Promise<RedisClusterSet> {
    const set = await RedisClusterSet.allocate();
    await set.form(options);
    return set;
  }

  /** A set with its ports chosen (its `env` known) and nothing started yet: `form` starts it. */
  static async allocate(): Promise<RedisClusterSet> {
    const ports: number[] = [];
    while (ports.length < 6) {
      // A node also listens on its port + 10000 (the cluster bus): both must be free.
      const port = await freePort();
      if (!ports.includes(port) && (await portIsFree(port + 10000))) ports.push(port);
    }
    return new RedisClusterSet(ports);
  }

  /** Starts the nodes and forms the cluster; one that does not form leaves no server behind. */
  async form({ downAfterMs = 1000 } = {}): Promise<void> {
    const { ports } = this;
    try {
      for (const port of ports) {
        const args = [
          ...throwawayServerArgs(port),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          String(downAfterMs),
        ];
        this.#servers.spawn(port, args);
      }
      for (const port of ports) {
        await until(
          async () => (await askServer(port, (r) => r.ping()).catch(() => '')) === 'PONG',
          `node ${port}`,
        );
      }
      const create = spawn(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...ports.map((port) => `127.0.0.1:${port}`),
          '--cluster-replicas',
          '1',
          '--cluster-yes',
        ],
        { stdio: 'ignore' },
      );
      const code = await exited(create);
      if (code !== 0) throw new Error(`redis-cli --cluster create exited with ${code}`);
      await until(
        async () => {
          for (const port of ports) {
            const info = await askServer(port, (r) => r.cluster('INFO')).catch(() => '');
            if (!String(info).includes('cluster_state:ok')) return false;
          }
          return (await this.primaries()).length === 3 && (await this.#replicasInSync());
        },
        'the cluster to form, its replicas in sync',
        30_000,
      );
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** The ports of the nodes that are primaries now, each with the slot ranges it serves. */
  async primaries(): Promise<number[]> {
    const nodes = String(await this.#askAny((r) => r.cluster('NODES')));
    return nodes
      .split('\n')
      .filter((line) => /\bmaster\b/.test(line) && !/\bfail\b/.test(line) && line.split(' ').length > 8)
      .map((line) => Number(/:(\d+)@/.exec(line)![1]));
  }

  /** The primary serving `key`'s slot. */
  async primaryOf(key: string): Promise<number> {
    const slot = Number(await this.#askAny((r) => r.cluster('KEYSLOT', key)));
    const ranges = await this.#askAny((r) => r.cluster('SLOTS'));
    const primary = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2];
    if (primary === undefined) throw new Error(`no node serves slot ${slot}`);
    return primary[1];
  }

  /** Waits until every replica has every write its primary has. */
  async replicated(): Promise<void> {
    await until(() => this.#replicasInSync(), 'the replicas to catch up');
  }

  /** Kills a node with SIGKILL: no shutdown, no last write. */
  kill(port: number): Promise<void> {
    return this.#servers.kill(port);
  }

  stop(): Promise<void> {
    return this.#servers.stop();
  }

  async #replicasInSync(): Promise<boolean> {
    for (const port of await this.primaries()) {
      const info = await askServer(port, (r) => r.info('replication'));
      const offset = Number(/master_repl_offset:(\d+)/.exec(info)?.[1] ?? -1);
      const replicas = [...info.matchAll(/slave\d+:.*state=(\w+),offset=(\d+)/g)];
      if (
        replicas.length < 1 ||
        replicas.some(([, state, at]) => state !== 'online' || Number(at) < offset)
      ) {
        return false;
      }
    }
    return true;
  }

  /** Asks the first node that answers (nodes may have been killed). */
  async #askAny<T>(question: (redis: Redis) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const port of this.#servers.running()) {
      try {
        return await askServer(port, question);
      } catch (error) {
        last = error;
      }
    }
    throw last;
  }
}
