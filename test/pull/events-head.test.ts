import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';
import { openSse } from '../support/sse.ts';

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  // One stream per bot: a HEAD that took a lease would leave none for the GET after it.
  h = await createHarness({ MAX_STREAMS_PER_BOT: '1' });
  site = await serve(h);
});
afterAll(async () => {
  await site.close();
  await h.close();
});

describe('HEAD /v1/bots/me/events', () => {
  it("answers at once with the stream's headers and no body, holding no stream", async () => {
    const bot = await registerBot(h, { name: 'head-only' });
    const res = await request(h.app).head('/v1/bots/me/events').set(bearer(bot.token));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.text ?? '').toBe('');

    const stream = await openSse(`${site.origin}/v1/bots/me/events`, bearer(bot.token));
    stream.close();
  });

  it('answers 401 without a token, as GET does', async () => {
    expect((await request(h.app).head('/v1/bots/me/events')).status).toBe(401);
  });
});
