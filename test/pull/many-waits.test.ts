import { setMaxListeners } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/redis/keys.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { PrivateRedis } from '../support/private-redis.ts';

const BOTS = 200;

let server: PrivateRedis;
let redis: Redis;
let pull: RedisPullStore;
beforeAll(async () => {
  server = await PrivateRedis.start();
  redis = new Redis(server.url, { connectionName: 'many-waits-main' });
  pull = new RedisPullStore(redis, 'many-waits');
});
afterAll(async () => {
  await pull.close();
  redis.disconnect();
  await server.stop();
});

const keys = storeKeys('many-waits');

/** A move's event on its match's stream, told as the API's script tells it. */
async function recordMove(admin: Redis, matchId: string): Promise<void> {
  const move = { ply: 1, player: 'white', square: 'd3', flips: ['d4'], latencyMs: 5 };
  const turn = {
    ply: 2,
    toMove: 'black',
    deadline: null,
    banks: { black: 0, white: 0 },
    lastLatency: { black: null, white: 5 },
  };
  await admin.xadd(keys.matchEvents(matchId), '*', 'type', 'move', 'data', JSON.stringify({ move, turn }));
  await admin.spublish(keys.streamAppends, keys.matchEvents(matchId));
}

/** Connections the redis-server of this test has open, this test's admin connection included. */
async function clients(admin: Redis): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list.trim().split('\n').length;
}

describe('a process with many waits at once', () => {
  it('waits for 200 event streams, 200 long polls and 200 turns on a few connections, and wakes each', async () => {
    const admin = new Redis(server.url);
    const stop = new AbortController();
    setMaxListeners(0, stop.signal); // 600 waits share it, as an API's long polls share `closing`
    const bots = Array.from({ length: BOTS }, (_, i) => `bot-${i}`);
    // Each bot has a stream and a long poll open, each waiting from the stream's head.
    const readers = bots.flatMap(() => [pull.openReader(stop.signal), pull.openReader(stop.signal)]);
    const reads = readers.map((reader, i) => reader.read(bots[i >> 1] ?? '', '0-0', 30_000));
    // And a worker waits for each bot's move, on its match's event stream.
    const moves = bots.map((_, i) => pull.awaitPulledMove(`match-${i}`, 1, '0-0', 30_000, stop.signal));
    try {
      // The main connection, the subscriber (every stream's appends), and `admin`.
      const most = 3;
      await expect.poll(() => clients(admin), { timeout: 10_000 }).toBe(most);
      expect(await clients(admin)).toBeLessThanOrEqual(most);

      await Promise.all(bots.map((bot) => pull.appendEvent(bot, 'yourTurn', JSON.stringify({ bot }))));
      await Promise.all(bots.map((_, i) => recordMove(admin, `match-${i}`)));
      const events = await Promise.all(reads);
      const answers = await Promise.all(moves);

      events.forEach((got, i) => {
        expect(got.map((event) => JSON.parse(event.data).bot)).toEqual([bots[i >> 1]]);
      });
      expect(
        answers.every((answer) => answer !== null && answer !== 'ended' && answer.move.square === 'd3'),
      ).toBe(true);
      expect(await clients(admin)).toBeLessThanOrEqual(most);
    } finally {
      stop.abort();
      for (const reader of readers) reader.close();
      admin.disconnect();
    }
  });

  it('wakes a wait that began while others were waiting on other streams', async () => {
    const stop = new AbortController();
    const early = pull.openReader(stop.signal);
    const late = pull.openReader(stop.signal);
    try {
      const first = early.read('early', '0-0', 30_000);
      await new Promise((settle) => setTimeout(settle, 50)); // `early` alone waits
      const second = late.read('late', '0-0', 30_000);
      await pull.appendEvent('late', 'yourTurn', '{}');
      const started = performance.now();
      expect((await second).map((event) => event.type)).toEqual(['yourTurn']);
      expect(performance.now() - started).toBeLessThan(1000);
      late.close();
      early.close();
      expect(await first).toEqual([]);
    } finally {
      stop.abort();
    }
  });
});
