import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';
import { openSse } from '../support/sse.ts';

// Each test closes its harness under open streams, so each has its own.
let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
beforeEach(async () => {
  h = await createHarness();
  site = await serve(h);
});
afterEach(async () => {
  await site.close();
});

/**
 * The stores close their waits (a process closing, its streams not told first): a stream's read
 * then answers at once, forever. A stream that read on took the event loop in a loop of keep-alives.
 */
describe('an event stream whose store closes its waits', () => {
  it("ends: a bot's stream", async () => {
    const bot = await registerBot(h, { name: 'closing-store-bot' });
    const stream = await openSse(`${site.origin}/v1/bots/me/events`, bearer(bot.token));
    await h.close();
    await expect(stream.next()).rejects.toThrow(/ended/);
    expect(stream.comments()).toBeLessThanOrEqual(1);
  });

  it("ends: a spectator's stream", async () => {
    const a = await registerBot(h, { name: 'closing-store-a', url: 'http://127.0.0.1:9/' });
    const b = await registerBot(h, { name: 'closing-store-b', url: 'http://127.0.0.1:9/' });
    const id = await createMatch(h, a.id, b.id);
    const stream = await openSse(`${site.origin}/v1/matches/${id}/events`, {});
    expect((await stream.next()).event).toBe('state');
    await h.close();
    await expect(stream.next()).rejects.toThrow(/ended/);
    expect(stream.comments()).toBeLessThanOrEqual(1);
  });
});
