import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  // As production runs: responses not validated (answers are sent pre-serialized), pages cached.
  h = await createHarness({ OPENAPI_VALIDATE_RESPONSES: 'false', LEADERBOARD_CACHE_MS: '60000' });
});
afterAll(() => h.close());

describe('GET /v1/leaderboard from memory', () => {
  it('answers as res.json would: the same JSON, its type, a weak ETag and 304 to If-None-Match', async () => {
    const first = await request(h.app).get('/v1/leaderboard').expect(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers.etag).toMatch(/^W\/"/);
    const again = await request(h.app).get('/v1/leaderboard').expect(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    await request(h.app).get('/v1/leaderboard').set('If-None-Match', String(first.headers.etag)).expect(304);
    expect(Number(first.headers['content-length'])).toBe(Buffer.byteLength(first.text));
    const head = await request(h.app).head('/v1/leaderboard').expect(200);
    expect(head.headers['content-length']).toBe(first.headers['content-length']);
    expect(head.headers.etag).toBe(first.headers.etag);
    expect(head.text).toBeUndefined();
  });

  it('is at most LEADERBOARD_CACHE_MS stale: a new bot shows on a page not read before', async () => {
    await request(h.app).get('/v1/leaderboard?limit=5').expect(200);
    await request(h.app).post('/v1/bots').send({ name: 'cached-newcomer' }).expect(201);
    const cached = await request(h.app).get('/v1/leaderboard?limit=5').expect(200);
    expect(cached.body.unrankedTotal).toBe(0);
    const fresh = await request(h.app).get('/v1/leaderboard?limit=6').expect(200);
    expect(fresh.body.unrankedTotal).toBe(1);
  });
});

describe('GET /v1/matches/{id}/state for spectators from memory', () => {
  let cached: Harness;
  beforeAll(async () => {
    cached = await createHarness({ OPENAPI_VALIDATE_RESPONSES: 'false', SPECTATOR_STATE_CACHE_MS: '60000' });
  });
  afterAll(() => cached.close());

  it('serves spectators one read per SPECTATOR_STATE_CACHE_MS, and players their own fresh view', async () => {
    const black = await registerBot(cached, { name: 'watched-black' });
    const white = await registerBot(cached, { name: 'watched-white' });
    const id = await createMatch(cached, black.id, white.id);
    const before = await request(cached.app).get(`/v1/matches/${id}/state`).expect(200);
    expect(before.body.status).toBe('queued');
    await cached.stores.matches.startMatch(id, Date.now());
    const spectator = await request(cached.app).get(`/v1/matches/${id}/state`).expect(200);
    expect(spectator.text).toBe(before.text);
    expect(spectator.headers.etag).toBe(before.headers.etag);
    const player = await request(cached.app)
      .get(`/v1/matches/${id}/state`)
      .set('Authorization', `Bearer ${black.token}`)
      .expect(200);
    expect(player.body.status).toBe('running');
  });
});
