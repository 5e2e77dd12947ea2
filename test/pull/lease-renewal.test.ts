import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MARGIN_MS } from '../../src/arena/pull.ts';
import { storeKeys } from '../../src/redis/keys.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';
import { openSse } from '../support/sse.ts';

const KEEP_ALIVE_MS = 100;
/** The stream's lease lives this long unless renewed (see holdStream in routes/pull.ts). */
const LEASE_MS = KEEP_ALIVE_MS * 2 + LEASE_MARGIN_MS;

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  h = await createHarness({ SSE_KEEPALIVE_MS: String(KEEP_ALIVE_MS) });
  site = await serve(h);
});
afterAll(async () => {
  await site?.close();
  await h?.close();
});

const pause = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

describe('an event stream held longer than its lease and its presence live', () => {
  it('renews both as it goes: the bot stays online on one lease, and is offline once it leaves', async () => {
    const bot = await registerBot(h, { name: 'long-listener' });
    const pull = new RedisPullStore(h.redis, h.prefix);
    const streams = storeKeys(h.prefix).botStreams(bot.id);
    const expiries = async () =>
      (await h.redis.zrange(streams, 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    const stream = await openSse(`${site.origin}/v1/bots/me/events`, {
      authorization: `Bearer ${bot.token}`,
    });
    try {
      await expect.poll(() => pull.isOnline(bot.id)).toBe(true);
      const [first] = await expiries();
      // Past the lease's whole life, and many times the presence's (three keep-alives).
      await pause(LEASE_MS + 1500);
      expect(await pull.isOnline(bot.id)).toBe(true);
      const later = await expiries();
      expect(later).toHaveLength(1);
      expect(later[0]).toBeGreaterThan((first ?? 0) + LEASE_MS);
    } finally {
      stream.close();
    }
    await expect.poll(async () => (await expiries()).length).toBe(0);
    await expect.poll(() => pull.isOnline(bot.id), { timeout: 4000 }).toBe(false);
    await pull.close();
  }, 30_000);
});
