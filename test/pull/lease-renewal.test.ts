import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MARGIN_MS } from '../../src/arena/pull.ts';
import { storeKeys } from '../../src/redis/keys.ts';
import { registerBot } from '../support/api.ts';
import { CommandMonitor } from '../support/command-monitor.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { PrivateRedis } from '../support/private-redis.ts';
import { serve } from '../support/serve.ts';
import { openSse } from '../support/sse.ts';

const KEEP_ALIVE_MS = 100;
/** The stream's lease lives this long unless renewed (see holdStream in routes/pull.ts). */
const LEASE_MS = KEEP_ALIVE_MS * 2 + LEASE_MARGIN_MS;

// A redis-server of this file's own: MONITOR tells when the stream renews, and its keyspace events
// when a presence lapses, so the test waits on those rather than on the lease's whole life.
let server: PrivateRedis;
let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let commands: CommandMonitor;
let expiries: Redis;
beforeAll(async () => {
  server = await PrivateRedis.start();
  h = await createHarness({ REDIS_URL: server.url, SSE_KEEPALIVE_MS: String(KEEP_ALIVE_MS) });
  site = await serve(h);
  commands = await CommandMonitor.start(h.redis);
  await h.redis.config('SET', 'notify-keyspace-events', 'Ex');
  expiries = new Redis(server.url);
  await expiries.subscribe('__keyevent@0__:expired');
});
afterAll(async () => {
  expiries?.disconnect();
  commands?.stop();
  await site?.close();
  await h?.close();
  await server?.stop();
});

/**
 * Resolves with the next command `name` run on `key` (as MONITOR tells it), from now on; `script`
 * for a script called with it among its keys.
 */
function next(name: string, key: string): Promise<string[]> {
  return new Promise((resolve) => {
    const stop = commands.listen((args, source) => {
      const command = args[0]?.toLowerCase() ?? '';
      const named =
        name === 'script'
          ? source !== 'lua' && (command === 'evalsha' || command === 'eval') && args.includes(key)
          : command === name && args[1] === key;
      if (named) {
        stop();
        resolve(args);
      }
    });
  });
}

/** Resolves once `key` expires. */
function expired(key: string): Promise<void> {
  return new Promise((resolve) => {
    const heard = (_channel: string, expiredKey: string) => {
      if (expiredKey !== key) return;
      expiries.off('message', heard);
      resolve();
    };
    expiries.on('message', heard);
  });
}

describe('an event stream held longer than its lease and its presence live', () => {
  it('renews both as it goes: the bot stays online on one lease, and is offline once it leaves', async () => {
    const bot = await registerBot(h, { name: 'long-listener' });
    const keys = storeKeys(h.prefix);
    const streams = keys.botStreams(bot.id);
    const online = keys.botOnline(bot.id);
    const leases = async () => {
      const scored = await h.redis.zrange(streams, 0, -1, 'WITHSCORES');
      return scored.flatMap((value, i) =>
        i % 2 === 0 ? [{ id: value, expiresAt: Number(scored[i + 1]) }] : [],
      );
    };
    // The stream's head comes once its lease is held.
    const stream = await openSse(`${site.origin}/v1/bots/me/events`, {
      authorization: `Bearer ${bot.token}`,
    });
    try {
      const [lease] = await leases();
      expect(lease).toBeDefined();
      // As if the lease's whole life and the presence's had passed without a renewal: both about to lapse.
      await h.redis.zadd(streams, Date.now() + 500, lease?.id ?? '');
      await h.redis.pexpire(online, 500);
      const renewed = Promise.all([next('script', streams), next('set', online)]);
      await renewed;
      await commands.caughtUp();
      const after = await leases();
      expect(after).toHaveLength(1);
      expect(after[0]?.id).toBe(lease?.id);
      expect(after[0]?.expiresAt).toBeGreaterThan(Date.now() + LEASE_MS - 1000);
      expect(await h.redis.pttl(online)).toBeGreaterThan(500);
    } finally {
      stream.close();
    }
    // Gone: its lease released at once, its presence lapses with its last renewal.
    const released = next('zrem', streams);
    const lapsed = expired(online);
    await released;
    await commands.caughtUp();
    expect(await leases()).toEqual([]);
    await lapsed;
    expect(await h.redis.exists(online)).toBe(0);
  });
});
