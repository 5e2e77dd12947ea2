import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createRedis, RedisOutageLog, redisErrorListener } from '../../src/connections/redis-connection.ts';
import { startMatchPool } from '../../src/pool/match-pool.ts';
import { connectionIs, PrivateRedis, until } from '../support/private-redis.ts';

let server: PrivateRedis;
beforeAll(async () => {
  server = await PrivateRedis.start();
});
afterAll(async () => {
  await server?.stop();
});

/** Lines as they are written, and a wait for the next one (woken by the write, never polling). */
function lineLog<L>() {
  const lines: L[] = [];
  let waiting: (() => void)[] = [];
  return {
    lines,
    add(line: L) {
      lines.push(line);
      for (const wake of waiting) wake();
      waiting = [];
    },
    /** Resolves once `holds` is true of the lines written. */
    async until(holds: (lines: readonly L[]) => boolean): Promise<void> {
      while (!holds(lines)) await new Promise<void>((wake) => waiting.push(wake));
    },
  };
}

/** A logger that keeps what each level was told. */
function recordingLogger() {
  const log = lineLog<{ level: string; msg: string }>();
  return {
    lines: log.lines,
    logged: (msg: string) => log.until((lines) => lines.some((line) => line.msg === msg)),
    warn: (_obj: object, msg: string) => log.add({ level: 'warn', msg }),
    info: (msg: string) => log.add({ level: 'info', msg }),
    error: (_obj: object, msg: string) => log.add({ level: 'error', msg }),
  };
}

describe('redisErrorListener', () => {
  it('hands what ioredis rejects commands with while Redis is down to the outage log, once, not to the error log', async () => {
    const logger = recordingLogger();
    const outages = new RedisOutageLog(logger);
    const relay = await relayTo(server.port);
    // The API's connection (no offline queue) and one that queues offline with a retry limit.
    const api = outages.watch(createRedis(relay.url, 'api'));
    const queued = outages.watch(createRedis(relay.url, 'api', { enableOfflineQueue: true }));
    await Promise.all([api.connect(), queued.connect()]);
    const report = redisErrorListener(outages, logger, 'stream waits failed');
    try {
      relay.down();
      // The clients notice as their connections close.
      await Promise.all([api, queued].map((client) => connectionIs(client, 'down')));
      const refused = await api.xread('STREAMS', 'k', '0-0').then(
        () => undefined,
        (error: Error) => error,
      );
      const exhausted = await queued.xread('STREAMS', 'k', '0-0').then(
        () => undefined,
        (error: Error) => error,
      );
      expect(refused?.message).toMatch(/enableOfflineQueue/);
      expect(exhausted?.name).toBe('MaxRetriesPerRequestError');
      report(refused as Error);
      report(exhausted as Error);
      report(new Error('NOPERM this user has no permissions to access one of the channels'));
      expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.msg)).toEqual([
        'stream waits failed',
      ]);
      expect(logger.lines.filter((line) => line.msg.startsWith('redis connection lost'))).toHaveLength(1);

      relay.up();
      await logger.logged('redis connection restored');
    } finally {
      api.disconnect();
      queued.disconnect();
      relay.close();
    }
  });
});

/**
 * A TCP relay to Redis that can reset (RST) the client side of one relayed connection, or take Redis
 * "down" and "up" for its clients: down resets every relayed connection and every new one, as a
 * Redis that died would. The outage is the relay's, so the server's port is never given up: stopped
 * and started again, another process of the suite could take that port meanwhile (it did).
 */
async function relayTo(port: number) {
  const clients = new Map<number, Socket>(); // the relay's port towards Redis → the client's socket
  const live = new Set<Socket>();
  let down = false;
  const relay = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    live.add(client);
    client.on('close', () => live.delete(client));
    const upstream = createConnection(port, '127.0.0.1');
    upstream.once('connect', () => clients.set(upstream.localPort!, client));
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    // Redis refusing the relay's connection reaches the client as a reset, as a refusal would.
    upstream.on('error', () => client.resetAndDestroy()).on('close', end);
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  return {
    url: `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    /** Resets the client side of the relayed connection Redis sees coming from `port`. */
    reset: (port: number) => clients.get(port)?.resetAndDestroy(),
    /** Redis unreachable through the relay until `up`. */
    down: () => {
      down = true;
      for (const client of live) client.resetAndDestroy();
    },
    up: () => {
      down = false;
    },
    close: () => relay.close(),
  };
}

// Generous: a pool starts and reconnects slowly on a machine busy with the suite's other files.
describe("a match pool's outage log", { timeout: 90_000 }, () => {
  it("ends an outage only BullMQ's own blocking connection saw, so the next outage is logged too", async () => {
    const relay = await relayTo(server.port);
    const log = lineLog<string>();
    const messages = log.lines;
    const logger = pino({ level: 'info' }, { write: (line: string) => log.add(JSON.parse(line).msg) });
    const config = loadConfig({
      REDIS_URL: relay.url,
      REDIS_PREFIX: `outage-${Date.now()}`,
      REDIS_AUTOSTART: 'false',
      MATCHMAKING_ENABLED: 'false',
      HOUSE_BOTS: 'false',
      WORKER_THREADS: '0',
      SOLO_SECRET: process.env.SOLO_SECRET!,
    });
    const pool = await startMatchPool(config, logger, { matchmaking: false });
    const admin = createRedis(server.url, 'worker');
    admin.on('error', () => {});
    const outages = () => messages.filter((msg) => /^redis connection (lost|restored)/.test(msg));
    const outagesLogged = (count: number) => log.until(() => outages().length >= count);
    try {
      await admin.connect();
      // The worker's blocking connection, idle in its wait for a job: only it is reset.
      let blocking: number | undefined;
      await until(
        async () => {
          const line = ((await admin.client('LIST')) as string)
            .split('\n')
            .find((l) => / cmd=bzpopmin /.test(l));
          blocking = Number(/ addr=[\d.]+:(\d+) /.exec(line ?? '')?.[1]) || undefined;
          return blocking !== undefined;
        },
        "the worker's blocking wait",
        30_000,
      );
      relay.reset(blocking!);
      await outagesLogged(2);
      expect(outages()).toEqual(['redis connection lost; retrying', 'redis connection restored']);

      relay.down();
      await outagesLogged(3);
      relay.up();
      await outagesLogged(4);
      expect(outages().slice(2)).toEqual(['redis connection lost; retrying', 'redis connection restored']);
    } finally {
      await pool.close();
      admin.disconnect();
      relay.close();
    }
  });
});
