import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { closedPort, type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { serve } from '../support/serve.ts';
import { specSchema } from '../support/spec-schema.ts';
import { openSse } from '../support/sse.ts';

const SECRET = 's3cret-in-the-query';

let h: Harness;
let arena: ReturnType<typeof runnerFor>;
let healthy: LoopbackBot;
let site: Awaited<ReturnType<typeof serve>>;
let base: string;
let port: number;
let down: RegisteredBot;
let opponent: RegisteredBot;
let matchId: string;
beforeAll(async () => {
  h = await createHarness({ MATCHMAKING_PAUSE_AFTER_FAULTS: '1' });
  arena = runnerFor(h);
  healthy = await startLoopbackBot(playsFirstLegal());
  site = await serve(h);
  base = site.origin;
  port = await closedPort();
  // A push bot whose URL carries a secret, on a port where nothing listens: it faults at ply 1.
  down = await registerBot(h, { name: 'private-url', url: `http://127.0.0.1:${port}/hook?key=${SECRET}` });
  opponent = await registerBot(h, { name: 'nosy-opponent', url: healthy.url });
  matchId = await createMatch(h, opponent.id, down.id);
  await arena.runner.play(matchId, new AbortController().signal);
});
afterAll(async () => {
  await healthy.close();
  await site.close();
  await arena.close();
  await h.close();
});

/** True when a text shows nothing that could identify the bot's server. */
const revealsNothing = (text: string) =>
  !text.includes(SECRET) &&
  // The port as part of an address (a bare number could be any JSON value, as in `"rating":1000`).
  !new RegExp(`[^"]:${port}\\b|port ${port}\\b`).test(text) &&
  !text.includes('127.0.0.1') &&
  !text.includes('/hook');

describe("a push bot's fault", () => {
  it('is public only as its kind, player, latency and a generic message', async () => {
    const publicView = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(publicView.result.fault).toMatchObject({
      player: 'white',
      reason: 'bot-error',
      cause: 'connection-refused',
      message: "the bot's server refused the connection",
    });
    expect(publicView.result.fault.body).toBeUndefined();
    for (const view of [
      publicView,
      (await request(h.app).get(`/v1/matches/${matchId}`).set(bearer(opponent.token))).body,
      (await request(h.app).get('/v1/matches').query({ bot: down.id })).body,
      (await request(h.app).get(`/v1/matches/${matchId}/state`)).body,
      (await request(h.app).get('/v1/bots/me/matches').set(bearer(opponent.token))).body,
    ]) {
      expect(revealsNothing(JSON.stringify(view))).toBe(true);
    }
  });

  it("is shown in full to the faulting bot's own token and to the admin", async () => {
    for (const token of [down.token, h.config.adminToken!]) {
      const full = (await request(h.app).get(`/v1/matches/${matchId}`).set(bearer(token))).body;
      expect(full.result.fault.message).toContain(SECRET);
    }
    const own = (await request(h.app).get(`/v1/matches/${matchId}/state`).set(bearer(down.token))).body;
    expect(own.result.fault.message).toContain(SECRET);
  });

  it("reaches the opponent's matchFinished event without the private details", async () => {
    const stream = await openSse(`${base}/v1/bots/me/events`, {
      ...bearer(opponent.token),
      'last-event-id': '0-0',
    });
    try {
      let finished: { type: string; data: string } | undefined;
      while (finished === undefined) {
        const event = await stream.next();
        if (event.event === 'matchFinished') finished = { type: event.event, data: event.data };
      }
      expect(JSON.parse(finished.data).result.fault.message).toBe("the bot's server refused the connection");
      expect(specSchema('BotMatchFinishedEvent')(JSON.parse(finished.data))).toEqual([]);
      expect(revealsNothing(finished.data)).toBe(true);
    } finally {
      stream.close();
    }
    const ownStream = await openSse(`${base}/v1/bots/me/events`, {
      ...bearer(down.token),
      'last-event-id': '0-0',
    });
    try {
      for (;;) {
        const event = await ownStream.next();
        if (event.event !== 'matchFinished') continue;
        expect(event.data).toContain(SECRET);
        expect(specSchema('BotMatchFinishedEvent')(JSON.parse(event.data))).toEqual([]);
        break;
      }
    } finally {
      ownStream.close();
    }
  });

  it('pauses the bot with a public reason that names no address, and the detail for its owner', async () => {
    const publicProfile = (await request(h.app).get(`/v1/bots/${down.id}`)).body;
    expect(publicProfile.paused.reason).toMatch(/refused the connection/);
    expect(publicProfile.paused.detail).toBeUndefined();
    expect(publicProfile.url).toBeUndefined();
    expect(revealsNothing(JSON.stringify(publicProfile))).toBe(true);
    expect(revealsNothing(JSON.stringify((await request(h.app).get('/v1/bots')).body))).toBe(true);
    for (const token of [down.token, h.config.adminToken!]) {
      const own = (await request(h.app).get(`/v1/bots/${down.id}`).set(bearer(token))).body;
      expect(own.paused.detail).toContain(SECRET);
    }
    expect((await request(h.app).get(`/v1/bots/${down.id}`).set(admin)).body.url).toContain(SECRET);
  });
});
