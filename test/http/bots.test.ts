import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/arena/secrets.ts';
import { admin, bearer, registerBot, storedKeys } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('POST /v1/bots', () => {
  describe('with a name and a URL', () => {
    it('registers a push bot and shows its secrets once', async () => {
      const res = await request(h.app)
        .post('/v1/bots')
        .send({ name: 'Pusher', description: 'pushes', url: 'http://127.0.0.1:9/move' });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`/v1/bots/${res.body.id}`);
      expect(res.body).toMatchObject({
        name: 'Pusher',
        kind: 'push',
        status: 'active',
        rating: 1500,
        games: 0,
      });
      expect(res.body.token).toMatch(/^rvb_/);
      expect(res.body.webhookSecret).toMatch(/^whsec_/);
      const again = await request(h.app).get(`/v1/bots/${res.body.id}`);
      expect(again.body.token).toBeUndefined();
      expect(again.body.webhookSecret).toBeUndefined();
      expect(again.body.url).toBeUndefined();
      const asOwner = await request(h.app).get(`/v1/bots/${res.body.id}`).set(bearer(res.body.token));
      expect(asOwner.body.url).toBe('http://127.0.0.1:9/move');
    });

    it('stores only a hash of the token', async () => {
      const bot = await registerBot(h, { name: 'hash-check' });
      const dump = JSON.stringify(await h.redis.hgetall(`${h.prefix}:bot:${bot.id}`));
      expect(dump).not.toContain(bot.token);
    });
  });

  describe('without a URL', () => {
    it('registers a pull bot with no webhook secret', async () => {
      const res = await request(h.app).post('/v1/bots').send({ name: 'puller' });
      expect(res.status).toBe(201);
      expect(res.body.kind).toBe('pull');
      expect(res.body.webhookSecret).toBeUndefined();
    });
  });

  describe('when the name is taken, in any case', () => {
    it('answers 409 bots/name-taken', async () => {
      await registerBot(h, { name: 'Taken' });
      const res = await request(h.app).post('/v1/bots').send({ name: 'tAKEN' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('bots/name-taken');
    });
  });

  describe.each([
    ['a name too short', { name: 'ab' }, 400, 'request/invalid'],
    ['a name with a space', { name: 'two words' }, 400, 'request/invalid'],
    ['an unknown field', { name: 'fine-name', colour: 'red' }, 400, 'request/invalid'],
    ['a wrong type', { name: 42 }, 400, 'request/invalid'],
    ['a URL that is not http', { name: 'ftp-bot', url: 'ftp://example.org/bot' }, 400, 'request/invalid'],
    [
      'a URL with credentials',
      { name: 'cred-bot', url: 'http://user:pw@example.org/' },
      400,
      'request/invalid',
    ],
  ])('with %s', (_case, body, status, code) => {
    it(`answers ${status} ${code} and writes nothing`, async () => {
      const before = await storedKeys(h);
      const res = await request(h.app).post('/v1/bots').send(body);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe(code);
      expect(res.body.errors.length).toBeGreaterThan(0);
      expect(await storedKeys(h)).toEqual(before);
    });
  });

  describe('with a body that is not JSON', () => {
    it('answers 400 request/malformed-json', async () => {
      const res = await request(h.app)
        .post('/v1/bots')
        .set('Content-Type', 'application/json')
        .send('{"name": ');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('request/malformed-json');
    });
  });

  describe('with no body', () => {
    it('answers 400 request/missing-body', async () => {
      const res = await request(h.app).post('/v1/bots');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('request/missing-body');
    });
  });

  describe('with a body over 16 kB', () => {
    it('answers 413 and writes nothing', async () => {
      const before = await storedKeys(h);
      const res = await request(h.app)
        .post('/v1/bots')
        .send({ name: 'big-bot', description: 'x'.repeat(20_000) });
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('request/too-large');
      expect(await storedKeys(h)).toEqual(before);
    });
  });
});

describe('POST /v1/bots when private bot URLs are not allowed', () => {
  let strict: Harness;
  beforeAll(async () => {
    strict = await createHarness({ ARENA_ALLOW_PRIVATE_BOT_URLS: 'false' });
  });
  afterAll(async () => strict.close());

  it.each([
    'http://127.0.0.1:8080/',
    'http://10.1.2.3/',
    'http://[::1]/',
    'http://169.254.169.254/',
    'http://[::ffff:7f00:1]/',
  ])('refuses %s with bots/url-not-allowed', async (url) => {
    const res = await request(strict.app).post('/v1/bots').send({ name: 'sneaky', url });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bots/url-not-allowed');
    // The refusal says how to allow it for local development.
    expect(res.body.detail).toContain('ARENA_ALLOW_PRIVATE_BOT_URLS=true');
  });
});

describe('GET /v1/bots', () => {
  let listing: Harness;
  beforeAll(async () => {
    listing = await createHarness();
    for (const name of ['delta', 'alpha', 'Charlie', 'bravo', 'echo', 'alphonse'])
      await registerBot(listing, { name });
  });
  afterAll(async () => listing.close());

  it('pages through every bot in name order with cursors', async () => {
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await request(listing.app)
        .get('/v1/bots')
        .query({ limit: 4, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      names.push(...res.body.items.map((bot: { name: string }) => bot.name));
      cursor = res.body.nextCursor;
    } while (cursor !== null);
    expect(names).toEqual(['alpha', 'alphonse', 'bravo', 'Charlie', 'delta', 'echo']);
  });

  it('searches by name prefix, ignoring case', async () => {
    const res = await request(listing.app).get('/v1/bots').query({ q: 'ALPH' });
    expect(res.body.items.map((bot: { name: string }) => bot.name)).toEqual(['alpha', 'alphonse']);
  });

  it('refuses a cursor it did not issue', async () => {
    const res = await request(listing.app).get('/v1/bots').query({ cursor: 'bm9wZQ' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('request/invalid-cursor');
    expect(res.body.errors).toEqual([{ path: 'query.cursor', message: 'unknown cursor' }]);
  });

  it('refuses a limit out of range', async () => {
    const res = await request(listing.app).get('/v1/bots').query({ limit: 1000 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('query.limit');
  });
});

describe('GET /v1/bots/{botId}', () => {
  it('answers 404 bots/not-found for an unknown id', async () => {
    const res = await request(h.app).get('/v1/bots/bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('bots/not-found');
  });

  it('answers 400 for something that is not a bot id', async () => {
    const res = await request(h.app).get('/v1/bots/not-an-id');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('params.botId');
  });
});

describe('PATCH /v1/bots/{botId}', () => {
  it('answers 401 without a token', async () => {
    const bot = await registerBot(h, { name: 'patch-anon' });
    const res = await request(h.app).patch(`/v1/bots/${bot.id}`).send({ description: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth/missing-token');
  });

  it("answers 403 with another bot's token", async () => {
    const bot = await registerBot(h, { name: 'patch-victim' });
    const other = await registerBot(h, { name: 'patch-other' });
    const res = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer(other.token))
      .send({ description: 'x' });
    expect(res.status).toBe(403);
    expect((await request(h.app).get(`/v1/bots/${bot.id}`)).body.description).toBeNull();
  });

  it('answers 401 auth/invalid-token with a token that matches nothing', async () => {
    const bot = await registerBot(h, { name: 'patch-typo' });
    const res = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer('rvb_nope'))
      .send({ description: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth/invalid-token');
  });

  it('lets the owner rename it and turn it into a pull bot', async () => {
    const bot = await registerBot(h, { name: 'patch-owner', url: 'http://127.0.0.1:9/' });
    const res = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer(bot.token))
      .send({ name: 'patched-owner', url: null, description: 'now pulls' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'patched-owner', kind: 'pull', description: 'now pulls' });
    const search = await request(h.app).get('/v1/bots').query({ q: 'patch-owner' });
    expect(search.body.items).toEqual([]);
    // The old name is free again.
    await registerBot(h, { name: 'patch-owner' });
  });

  it('shows the new webhook secret, once, when a pull bot becomes a push bot', async () => {
    const bot = await registerBot(h, { name: 'patch-to-push' });
    const res = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer(bot.token))
      .send({ url: 'http://127.0.0.1:9/' });
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('push');
    expect(res.body.webhookSecret).toMatch(/^whsec_/);
    const again = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer(bot.token))
      .send({ url: 'http://127.0.0.1:8/' });
    expect(again.body.webhookSecret).toBeUndefined();
  });

  it('lets the admin change any bot', async () => {
    const bot = await registerBot(h, { name: 'patch-admin' });
    const res = await request(h.app).patch(`/v1/bots/${bot.id}`).set(admin).send({ description: 'by admin' });
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('by admin');
  });

  it('answers 409 when renaming to a taken name', async () => {
    const bot = await registerBot(h, { name: 'patch-a' });
    await registerBot(h, { name: 'patch-b' });
    const res = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer(bot.token))
      .send({ name: 'PATCH-B' });
    expect(res.status).toBe(409);
    expect((await request(h.app).get(`/v1/bots/${bot.id}`)).body.name).toBe('patch-a');
  });

  it('answers 400 for an empty change', async () => {
    const bot = await registerBot(h, { name: 'patch-empty' });
    const res = await request(h.app).patch(`/v1/bots/${bot.id}`).set(bearer(bot.token)).send({});
    expect(res.status).toBe(400);
  });
});

describe('DELETE /v1/bots/{botId}', () => {
  it('retires the bot, revokes its token and keeps its profile', async () => {
    const bot = await registerBot(h, { name: 'retiree' });
    const res = await request(h.app).delete(`/v1/bots/${bot.id}`).set(bearer(bot.token));
    expect(res.status).toBe(204);
    const profile = await request(h.app).get(`/v1/bots/${bot.id}`);
    expect(profile.body.status).toBe('retired');
    const reuse = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer(bot.token))
      .send({ description: 'x' });
    expect(reuse.status).toBe(401);
    const active = await request(h.app).get('/v1/bots').query({ q: 'retiree' });
    expect(active.body.items).toEqual([]);
    const all = await request(h.app).get('/v1/bots').query({ q: 'retiree', includeRetired: 'true' });
    expect(all.body.items.map((b: { id: string }) => b.id)).toEqual([bot.id]);
    const board = await request(h.app).get('/v1/leaderboard').query({ limit: 100 });
    expect(board.body.items.map((e: { bot: { id: string } }) => e.bot.id)).not.toContain(bot.id);
  });

  it('is idempotent for the admin', async () => {
    const bot = await registerBot(h, { name: 'retire-twice' });
    expect((await request(h.app).delete(`/v1/bots/${bot.id}`).set(admin)).status).toBe(204);
    expect((await request(h.app).delete(`/v1/bots/${bot.id}`).set(admin)).status).toBe(204);
  });
});

describe('POST /v1/bots/{botId}/token', () => {
  it('issues new secrets and revokes the old token at once', async () => {
    const bot = await registerBot(h, { name: 'rotator', url: 'http://127.0.0.1:9/' });
    const res = await request(h.app).post(`/v1/bots/${bot.id}/token`).set(bearer(bot.token));
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^rvb_/);
    expect(res.body.token).not.toBe(bot.token);
    expect(res.body.webhookSecret).not.toBe(bot.webhookSecret);
    const old = await request(h.app).post(`/v1/bots/${bot.id}/token`).set(bearer(bot.token));
    expect(old.status).toBe(401);
    const fresh = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer(res.body.token))
      .send({ description: 'ok' });
    expect(fresh.status).toBe(200);
  });

  it('gives a retired bot no new token, even asked by the admin: 409 bots/retired', async () => {
    const bot = await registerBot(h, { name: 'retired-rotator' });
    expect((await request(h.app).delete(`/v1/bots/${bot.id}`).set(admin)).status).toBe(204);
    const res = await request(h.app).post(`/v1/bots/${bot.id}/token`).set(admin);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('bots/retired');
    expect(res.body.token).toBeUndefined();
    // The old token stays dead, and so does any token a racing rotation could have written.
    const profile = await request(h.app).get('/v1/bots/me').set(bearer(bot.token));
    expect(profile.status).toBe(401);
    expect(await h.stores.bots.findBotIdByTokenHash(hashToken(bot.token))).toBeNull();
  });
});
