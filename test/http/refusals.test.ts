import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/server.ts';
import { admin } from '../support/api.ts';
import { CommandMonitor } from '../support/command-monitor.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LogLines, startLoggedApi } from '../support/logged-api.ts';
import { PrivateRedis } from '../support/private-redis.ts';

// Its own redis-server: MONITOR sees every client's commands.
let redis: PrivateRedis;
let h: Harness;
let api: Awaited<ReturnType<typeof startLoggedApi>>['api'];
let log: LogLines;

beforeAll(async () => {
  redis = await PrivateRedis.start();
  h = await createHarness({ REDIS_URL: redis.url, RATE_LIMIT_PER_IP: '2' });
  // The app `npm start` runs, logging at info, on the harness' configuration.
  ({ api, log } = await startLoggedApi(h.config));
});
afterAll(async () => {
  await api.close();
  await h.close();
  await redis.stop();
});

describe('a client over its rate limit', () => {
  it('is refused at the door for the rest of its window: the same answer, no Redis, one log line', async () => {
    const get = () => request(api.app).get('/v1/leaderboard');
    expect([(await get()).status, (await get()).status]).toEqual([200, 200]);
    log.clear();
    const byLimiter = await get();
    expect(byLimiter.status).toBe(429);
    // Its first refusal is logged once, with its address and what it was verified to be; the 429
    // itself is not a line at info.
    expect(log.entries()).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/over its rate limit/), principal: 'anonymous' }),
    ]);
    expect(log.entries()[0]).toHaveProperty('address');

    const monitor = await CommandMonitor.start(h.redis);
    const commands: string[] = [];
    const stop = monitor.listen((args) => commands.push(args[0]!.toLowerCase()));
    log.clear();
    const atTheDoor = await get();
    await monitor.caughtUp();
    stop();
    monitor.stop();
    expect(commands.filter((command) => command !== 'echo')).toEqual([]);
    expect(log.entries()).toEqual([]);

    expect(atTheDoor.status).toBe(429);
    expect(atTheDoor.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(atTheDoor.body).toMatchObject({ code: 'rate-limited', detail: byLimiter.body.detail });
    expect(Number(atTheDoor.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(atTheDoor.headers['retry-after'])).toBeLessThanOrEqual(
      Number(byLimiter.headers['retry-after']),
    );
    expect(atTheDoor.headers['ratelimit-policy']).toBe('"address"; q=2; w=60');
    expect(atTheDoor.headers.ratelimit).toMatch(/^"address"; r=0; t=\d+$/);
  });

  it('keeps pages and health checks, and a token of its own, which has a budget apart', async () => {
    expect((await request(api.app).get('/healthz')).status).toBe(200);
    expect((await request(api.app).get('/')).status).toBe(200);
    expect((await request(api.app).get('/v1/leaderboard').set(admin)).status).toBe(200);
  });
});

describe('the connection of a refused request', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createHttpServer(api.app, h.config.http, pino({ level: 'silent' }));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  /** A keep-alive connection: `ask` sends a request and resolves with the status of its answer. */
  async function keepAlive() {
    const socket: Socket = connect(port, '127.0.0.1');
    await new Promise((done) => socket.once('connect', done));
    let received = '';
    const waiters: (() => void)[] = [];
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      for (const wake of waiters.splice(0)) wake();
    });
    const statuses = () => [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((found) => Number(found[1]));
    let asked = 0;
    return {
      async ask(path: string): Promise<number> {
        const nth = ++asked;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: arena\r\n\r\n`);
        while (statuses().length < nth) await new Promise<void>((wake) => waiters.push(wake));
        return statuses()[nth - 1]!;
      },
      close: () => socket.destroy(),
    };
  }

  it('is left unread for a while: the client waits on its socket, and others are answered meanwhile', async () => {
    const held = await keepAlive();
    // Asks until it is refused (its address' budget of 2 may be spent already).
    while ((await held.ask('/v1/leaderboard')) !== 429);
    const fresh = await keepAlive();
    const order: string[] = [];
    await Promise.all([
      held.ask('/v1/leaderboard').then(() => order.push('held')),
      fresh.ask('/healthz').then(() => order.push('fresh')),
    ]);
    expect(order).toEqual(['fresh', 'held']);
    held.close();
    fresh.close();
  });
});
