import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, type RegisteredBot, registerBot, storedKeys } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let black: RegisteredBot;
let white: RegisteredBot;
let outsider: RegisteredBot;
beforeAll(async () => {
  h = await createHarness();
  black = await registerBot(h, { name: 'black-bot', url: 'http://127.0.0.1:9/' });
  white = await registerBot(h, { name: 'white-bot' });
  outsider = await registerBot(h, { name: 'outsider' });
});
afterAll(async () => h.close());

describe('POST /v1/matches', () => {
  describe("with one player's token", () => {
    it('queues the match with default rules and a job named by the match id', async () => {
      const res = await request(h.app)
        .post('/v1/matches')
        .set(bearer(black.token))
        .send({ black: black.id, white: white.id });
      expect(res.status).toBe(202);
      expect(res.headers.location).toBe(`/v1/matches/${res.body.id}`);
      expect(res.body).toMatchObject({
        black: { id: black.id, name: 'black-bot' },
        white: { id: white.id, name: 'white-bot' },
        status: 'queued',
        rated: false,
        moves: [],
        result: null,
        rules: {
          firstPlayer: 'white',
          captureRule: 'all',
          scoring: 'discs',
          timeLimitMs: 1000,
          overageMs: 5000,
        },
      });
      const job = await h.queue.queue.getJob(res.body.id);
      expect(job?.data).toEqual({ matchId: res.body.id });
    });

    it('takes the rules options it is given', async () => {
      const rules = {
        firstPlayer: 'black',
        captureRule: 'single-direction',
        scoring: 'empties-to-winner',
        timeLimitMs: 300,
        overageMs: 0,
      };
      const res = await request(h.app)
        .post('/v1/matches')
        .set(bearer(white.token))
        .send({ black: black.id, white: white.id, rules, rated: false });
      expect(res.status).toBe(202);
      expect(res.body.rules).toEqual(rules);
      expect(res.body.rated).toBe(false);
    });
  });

  describe('naming bots', () => {
    it('takes a bot by its name, whatever its case, and records its id', async () => {
      const res = await request(h.app)
        .post('/v1/matches')
        .set(bearer(black.token))
        .send({ black: 'BLACK-bot', white: 'white-bot' });
      expect(res.status).toBe(202);
      expect(res.body.black).toMatchObject({ id: black.id, name: 'black-bot' });
      expect(res.body.white).toMatchObject({ id: white.id, name: 'white-bot' });
      const stored = await request(h.app).get(`/v1/matches/${res.body.id}`);
      expect(stored.body.white.id).toBe(white.id);
    });

    it('answers 404 bots/not-found for a name no bot has, and writes nothing', async () => {
      const before = await storedKeys(h);
      const res = await request(h.app)
        .post('/v1/matches')
        .set(bearer(black.token))
        .send({ black: black.id, white: 'nobody-here' });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('bots/not-found');
      expect(res.body.detail).toBe('No bot has the name nobody-here.');
      expect(await storedKeys(h)).toEqual(before);
    });

    it('still needs the token of one of the players a name stands for', async () => {
      const res = await request(h.app)
        .post('/v1/matches')
        .set(bearer(outsider.token))
        .send({ black: 'black-bot', white: 'white-bot' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('auth/forbidden');
    });
  });

  describe('with the admin token', () => {
    it('queues a match between any two bots', async () => {
      const res = await request(h.app)
        .post('/v1/matches')
        .set(admin)
        .send({ black: outsider.id, white: white.id });
      expect(res.status).toBe(202);
    });
  });

  describe.each([
    ['no token', {}, () => ({ black: black.id, white: white.id }), 401, 'auth/missing-token'],
    [
      "a third bot's token",
      () => bearer(outsider.token),
      () => ({ black: black.id, white: white.id }),
      403,
      'auth/forbidden',
    ],
    [
      'the same bot twice',
      () => admin,
      () => ({ black: black.id, white: black.id }),
      400,
      'matches/same-bot',
    ],
    [
      'an unknown bot',
      () => admin,
      () => ({ black: black.id, white: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH' }),
      404,
      'bots/not-found',
    ],
    [
      'a time limit above the bound',
      () => admin,
      () => ({ black: black.id, white: white.id, rules: { timeLimitMs: 999_999 } }),
      400,
      'request/invalid',
    ],
    [
      'a time limit below the bound',
      () => admin,
      () => ({ black: black.id, white: white.id, rules: { timeLimitMs: 1 } }),
      400,
      'request/invalid',
    ],
    [
      'an unknown rules option',
      () => admin,
      () => ({ black: black.id, white: white.id, rules: { komi: 2 } }),
      400,
      'request/invalid',
    ],
  ])('with %s', (_case, headers, body, status, code) => {
    it(`answers ${status} ${code} and writes nothing`, async () => {
      const before = await storedKeys(h);
      const res = await request(h.app)
        .post('/v1/matches')
        .set(typeof headers === 'function' ? headers() : headers)
        .send(body());
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(code);
      expect(await storedKeys(h)).toEqual(before);
    });
  });

  describe('with a retired bot', () => {
    it('answers 409 bots/retired', async () => {
      const retired = await registerBot(h, { name: 'retired-player' });
      await request(h.app).delete(`/v1/bots/${retired.id}`).set(admin);
      const res = await request(h.app)
        .post('/v1/matches')
        .set(admin)
        .send({ black: retired.id, white: white.id });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('bots/retired');
    });
  });
});

describe('GET /v1/matches', () => {
  let listing: Harness;
  let a: RegisteredBot;
  let b: RegisteredBot;
  let c: RegisteredBot;
  const created: string[] = [];
  beforeAll(async () => {
    listing = await createHarness();
    a = await registerBot(listing, { name: 'list-a' });
    b = await registerBot(listing, { name: 'list-b' });
    c = await registerBot(listing, { name: 'list-c' });
    for (const [x, y] of [
      [a, b],
      [b, c],
      [a, c],
      [a, b],
      [c, b],
    ] as const) {
      const res = await request(listing.app)
        .post('/v1/matches')
        .set(admin)
        .send({ black: x.id, white: y.id });
      created.push(res.body.id);
    }
  });
  afterAll(async () => listing.close());

  it('pages through all matches, newest first', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await request(listing.app)
        .get('/v1/matches')
        .query({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      ids.push(...res.body.items.map((m: { id: string }) => m.id));
      cursor = res.body.nextCursor;
    } while (cursor !== null);
    expect(ids).toEqual([...created].reverse());
  });

  it('filters by bot and status', async () => {
    const res = await request(listing.app).get('/v1/matches').query({ bot: a.id, status: 'queued' });
    expect(res.body.items.map((m: { id: string }) => m.id)).toEqual([created[3], created[2], created[0]]);
    const none = await request(listing.app).get('/v1/matches').query({ bot: a.id, status: 'finished' });
    expect(none.body.items).toEqual([]);
  });

  it('refuses a cursor it did not issue', async () => {
    const res = await request(listing.app).get('/v1/matches').query({ cursor: 'bm9wZQ' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('request/invalid-cursor');
    expect(res.body.errors).toEqual([{ path: 'query.cursor', message: 'unknown cursor' }]);
  });

  it('refuses an unknown status', async () => {
    const res = await request(listing.app).get('/v1/matches').query({ status: 'paused' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('query.status');
  });
});

describe('GET /v1/matches/{matchId}', () => {
  it('answers 404 matches/not-found for an unknown match', async () => {
    const res = await request(h.app).get('/v1/matches/match_01JC3S2Q7G5T1XK0V3JH3W6R2D');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('matches/not-found');
  });
});
