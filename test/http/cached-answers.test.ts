import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  });

  it('is at most LEADERBOARD_CACHE_MS stale: a new bot shows on a page not read before', async () => {
    await request(h.app).get('/v1/leaderboard?limit=5').expect(200);
    await request(h.app).post('/v1/bots').send({ name: 'cached-newcomer' }).expect(201);
    const cached = await request(h.app).get('/v1/leaderboard?limit=5').expect(200);
    expect(cached.body.total).toBe(0);
    const fresh = await request(h.app).get('/v1/leaderboard?limit=6').expect(200);
    expect(fresh.body.total).toBe(1);
  });
});
