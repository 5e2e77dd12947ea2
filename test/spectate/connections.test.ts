import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { PrivateRedis } from '../support/private-redis.ts';
import { serve } from '../support/serve.ts';
import { openSse, type SseConnection } from '../support/sse.ts';

const MATCHES = 10;
const SPECTATORS_PER_MATCH = 3;

let server: PrivateRedis;
let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let admin: Redis;
const streams: SseConnection[] = [];

beforeAll(async () => {
  // A redis-server of this file's own: CLIENT LIST then counts this arena's connections alone.
  server = await PrivateRedis.start();
  h = await createHarness({ REDIS_URL: server.url, MAX_SPECTATOR_STREAMS_PER_ADDRESS: '100' });
  site = await serve(h);
  admin = new Redis(server.url);
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  admin?.disconnect();
  await site?.close();
  await h?.close();
  await server?.stop();
});

/** The connections the redis-server has open, this test's `admin` included. */
async function clients(): Promise<string[]> {
  return ((await admin.client('LIST')) as string).trim().split('\n');
}

const isSubscriber = (line: string) => line.includes('name=reversi-arena-subscriber');

/** Opens a spectator's stream and reads its first event (the state), so its wait is about to begin. */
async function spectate(matchId: string): Promise<SseConnection> {
  const stream = await openSse(`${site.origin}/v1/matches/${matchId}/events`, {});
  streams.push(stream);
  expect((await stream.next()).event).toBe('state');
  return stream;
}

describe('spectators of many matches on one API process', () => {
  it('wait on the one shared subscriber: no Redis connection per spectator, and each is woken', async () => {
    const a = await registerBot(h, { name: 'conn-a', url: 'http://127.0.0.1:9/' });
    const b = await registerBot(h, { name: 'conn-b', url: 'http://127.0.0.1:9/' });
    const ids: string[] = [];
    for (let i = 0; i < MATCHES; i++) ids.push(await createMatch(h, a.id, b.id));

    // The harness' own, and the API's but its subscriber (which may be open already).
    const others = async () => (await clients()).filter((line) => !isSubscriber(line)).length;
    const before = await others();
    const streamsOpen = [];
    for (const id of ids) {
      for (let i = 0; i < SPECTATORS_PER_MATCH; i++) streamsOpen.push(await spectate(id));
    }
    // Every stream waits on the process' one subscriber, there before or opened for them.
    await expect.poll(async () => (await clients()).filter(isSubscriber).length).toBe(1);
    expect(await others()).toBeLessThanOrEqual(before);

    // Each of them is waiting: a turn told on each match reaches every spectator of it.
    const now = Date.now();
    for (const id of ids) {
      await h.stores.matches.startMatch(id, now);
      await h.stores.matches.announceTurn(id, {
        ply: 1,
        toMove: 'white',
        deadline: now + 5000,
        banks: { black: 0, white: 0 },
        lastLatency: { black: null, white: null },
      });
    }
    const told = performance.now();
    const turns = await Promise.all(streamsOpen.map((stream) => stream.next()));
    expect(turns.every((event) => event.event === 'turn')).toBe(true);
    // Woken by the announcement, not found by a keep-alive's look 15 s on.
    expect(performance.now() - told).toBeLessThan(1000);
    expect((await clients()).filter(isSubscriber)).toHaveLength(1);
    expect(await others()).toBeLessThanOrEqual(before);
  });
});
