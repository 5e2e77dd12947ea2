import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/redis/keys.ts';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let bots: RegisteredBot[];
beforeAll(async () => {
  h = await createHarness();
  bots = [];
  for (let i = 0; i < 5; i++) bots.push(await registerBot(h, { name: `entrant-${i}` }));
});
afterAll(() => h?.close());

const create = (body: Record<string, unknown>, auth: Record<string, string> = admin) =>
  request(h.app).post('/v1/tournaments').set(auth).send(body);

async function created(body: Record<string, unknown>) {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const enter = (id: string, auth: Record<string, string>) =>
  request(h.app).post(`/v1/tournaments/${id}/entries`).set(auth);
const leave = (id: string, auth: Record<string, string>) =>
  request(h.app).delete(`/v1/tournaments/${id}/entries`).set(auth);
const start = (id: string, auth: Record<string, string> = admin) =>
  request(h.app).post(`/v1/tournaments/${id}/start`).set(auth);

describe('POST /v1/tournaments', () => {
  it('creates an open tournament with the bots named as entrants', async () => {
    const res = await create({
      name: 'Spring round robin',
      format: 'round-robin',
      bots: [bots[0]!.id, bots[1]!.id],
      openings: 'standard',
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/v1/tournaments/${res.body.id}`);
    expect(res.body).toMatchObject({
      name: 'Spring round robin',
      format: 'round-robin',
      status: 'open',
      gamesPerPairing: 2,
      rated: false,
      roundCount: null,
      entrantCount: 2,
      challenger: null,
      tiebreak: 'sonneborn-berger',
      rounds: [],
      startedAt: null,
    });
    expect(res.body.entrants).toEqual([
      { id: bots[0]!.id, name: bots[0]!.name, withdrawn: false },
      { id: bots[1]!.id, name: bots[1]!.name, withdrawn: false },
    ]);
    expect(res.body.standings.map((row: { points: number }) => row.points)).toEqual([0, 0]);
  });

  describe('without the admin token', () => {
    it('answers 401 to an anonymous caller and 403 to a bot', async () => {
      const body = { name: 'x', format: 'swiss', rounds: 2, openings: 'standard' };
      const anonymous = await create(body, {});
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('auth/missing-token');
      const bot = await create(body, bearer(bots[0]!.token));
      expect(bot.status).toBe(403);
      expect(bot.body.code).toBe('auth/admin-required');
    });
  });

  describe('with an invalid request', () => {
    it.each([
      [
        'a Swiss tournament without rounds',
        { format: 'swiss' },
        'tournaments/rounds-required',
        'body.rounds',
      ],
      [
        'rounds for a round robin',
        { format: 'round-robin', rounds: 3 },
        'tournaments/rounds-not-allowed',
        'body.rounds',
      ],
      [
        'a gauntlet without a challenger',
        { format: 'gauntlet' },
        'tournaments/challenger-required',
        'body.bots',
      ],
      [
        'rules with rated: true',
        { format: 'round-robin', rated: true, rules: { timeLimitMs: 500 } },
        'tournaments/rated-rules-fixed',
        'body.rules',
      ],
      [
        'balanced openings under single-direction capture',
        { format: 'round-robin', openings: 'balanced', rules: { captureRule: 'single-direction' } },
        'tournaments/openings-need-capture-all',
        'body.openings',
      ],
      [
        'a bot that does not exist',
        { format: 'round-robin', bots: ['bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH'] },
        'tournaments/unknown-bot',
        'body.bots.0',
      ],
      ['an unknown format', { format: 'knockout' }, 'request/invalid', 'body.format'],
      [
        'gamesPerPairing 3',
        { format: 'round-robin', gamesPerPairing: 3 },
        'request/invalid',
        'body.gamesPerPairing',
      ],
    ])('refuses %s with 400', async (_name, fields, code, path) => {
      const res = await create({ name: 'bad', openings: 'standard', ...fields });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe(code);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    });

    it('refuses a retired bot with 400 tournaments/retired-bot', async () => {
      const gone = await registerBot(h, { name: 'retired-one' });
      expect((await request(h.app).delete(`/v1/bots/${gone.id}`).set(admin)).status).toBe(204);
      const res = await create({ name: 'bad', format: 'round-robin', openings: 'standard', bots: [gone.id] });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('tournaments/retired-bot');
    });
  });
});

describe('POST and DELETE /v1/tournaments/{id}/entries', () => {
  it('lets a bot enter with its own token, once, and leave while the tournament is open', async () => {
    const t = await created({ name: 'Open entry', format: 'swiss', rounds: 2, openings: 'standard' });
    const joined = await enter(t.id, bearer(bots[2]!.token));
    expect(joined.status).toBe(201);
    expect(joined.body.entrants.map((e: { id: string }) => e.id)).toEqual([bots[2]!.id]);
    const again = await enter(t.id, bearer(bots[2]!.token));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('tournaments/already-entered');

    const left = await leave(t.id, bearer(bots[2]!.token));
    expect(left.status).toBe(204);
    expect((await request(h.app).get(`/v1/tournaments/${t.id}`)).body.entrantCount).toBe(0);
    const notIn = await leave(t.id, bearer(bots[2]!.token));
    expect(notIn.status).toBe(404);
    expect(notIn.body.code).toBe('tournaments/not-entered');
  });

  it("takes only the bot's own consent: the admin token is 403 and no token is 401", async () => {
    const t = await created({ name: 'Consent', format: 'round-robin', openings: 'standard' });
    const byAdmin = await enter(t.id, admin);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.code).toBe('auth/bot-token-required');
    expect((await enter(t.id, {})).status).toBe(401);
    expect((await leave(t.id, {})).status).toBe(401);
    expect((await leave(t.id, admin)).status).toBe(403);
    expect((await request(h.app).get(`/v1/tournaments/${t.id}`)).body.entrantCount).toBe(0);
  });

  it('lets a bot the admin entered withdraw, but keeps a gauntlet its challenger', async () => {
    const t = await created({
      name: 'Gauntlet entries',
      format: 'gauntlet',
      bots: [bots[0]!.id, bots[1]!.id],
      openings: 'standard',
    });
    expect(t.challenger).toEqual({ id: bots[0]!.id, name: bots[0]!.name });
    expect((await leave(t.id, bearer(bots[1]!.token))).status).toBe(204);
    const challenger = await leave(t.id, bearer(bots[0]!.token));
    expect(challenger.status).toBe(409);
    expect(challenger.body.code).toBe('tournaments/challenger-stays');
  });

  it('answers 409 tournaments/not-open once it has started, and 404 for no such tournament', async () => {
    const t = await created({
      name: 'Closed entry',
      format: 'round-robin',
      gamesPerPairing: 1,
      bots: [bots[0]!.id, bots[1]!.id],
      openings: 'standard',
    });
    expect((await start(t.id)).status).toBe(200);
    const late = await enter(t.id, bearer(bots[3]!.token));
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('tournaments/not-open');
    const out = await leave(t.id, bearer(bots[0]!.token));
    expect(out.status).toBe(409);
    expect(out.body.code).toBe('tournaments/not-open');
    const missing = await enter('tournament_01JC3T0B5Q8R2M4N6P8S0V2X4Z', bearer(bots[3]!.token));
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('tournaments/not-found');
  });
});

describe('a tournament with minRatedGames', () => {
  it('lets in by themselves only bots with that many rated games and not paused; the admin names anyone', async () => {
    const seeded = await created({
      name: 'For the experienced',
      format: 'round-robin',
      bots: [bots[0]!.id],
      openings: 'standard',
      minRatedGames: 3,
    });
    expect(seeded).toMatchObject({ minRatedGames: 3, entrantCount: 1 });
    const fresh = await registerBot(h, { name: 'fresh-entrant' });
    const refused = await enter(seeded.id, bearer(fresh.token));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('tournaments/not-eligible');
    expect(refused.body.detail).toMatch(/at least 3 rated games; this one has 0/);

    const veteran = await registerBot(h, { name: 'veteran-entrant' });
    const bot = storeKeys(h.prefix).bot(veteran.id);
    await h.redis.hset(
      bot,
      'ratedGames',
      '3',
      'pausedReason',
      'its last 3 matches ended by its faults',
      'pausedAt',
      '1',
      'pausedUntil',
      String(Date.now() + 60_000),
    );
    const paused = await enter(seeded.id, bearer(veteran.token));
    expect(paused.status).toBe(403);
    expect(paused.body.detail).toMatch(/paused/);
    // Its pause ends (only time ends one): it may enter.
    await h.redis.hset(bot, 'pausedUntil', String(Date.now()));
    expect((await enter(seeded.id, bearer(veteran.token))).status).toBe(201);
    expect((await request(h.app).get(`/v1/tournaments/${seeded.id}`)).body.entrantCount).toBe(2);
  });
});

describe('POST /v1/tournaments/{id}/start', () => {
  it('is for the admin only: 401 anonymous, 403 with a bot token, and nothing starts', async () => {
    const t = await created({
      name: 'Admin start',
      format: 'round-robin',
      bots: [bots[0]!.id, bots[1]!.id],
      openings: 'standard',
    });
    const anonymous = await start(t.id, {});
    expect(anonymous.status).toBe(401);
    const bot = await start(t.id, bearer(bots[0]!.token));
    expect(bot.status).toBe(403);
    expect(bot.body.code).toBe('auth/admin-required');
    expect((await request(h.app).get(`/v1/tournaments/${t.id}`)).body.status).toBe('open');
  });

  it('needs 2 entrants (409 tournaments/too-few-entrants)', async () => {
    const t = await created({
      name: 'Alone',
      format: 'round-robin',
      bots: [bots[0]!.id],
      openings: 'standard',
    });
    const res = await start(t.id);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('tournaments/too-few-entrants');
  });

  it('refuses more Swiss rounds than the field can play without a repeat', async () => {
    const t = await created({
      name: 'Too long',
      format: 'swiss',
      rounds: 4,
      bots: bots.slice(0, 3).map((b) => b.id),
      openings: 'standard',
    });
    const res = await start(t.id);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('tournaments/too-many-rounds');
  });

  it('queues round 1, whose matches carry the tournament and round, and starts only once', async () => {
    const t = await created({
      name: 'Started',
      format: 'round-robin',
      bots: bots.slice(0, 4).map((b) => b.id),
      openings: 'standard',
      rules: { timeLimitMs: 500 },
    });
    const res = await start(t.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'running', roundCount: 6, entrantCount: 4 });
    expect(res.body.rounds).toHaveLength(1);
    const [round] = res.body.rounds;
    expect(round.games).toHaveLength(2);
    for (const game of round.games) {
      expect(game.status).toBe('queued');
      const match = await request(h.app).get(`/v1/matches/${game.matchId}`);
      expect(match.body.tournament).toEqual({ id: t.id, round: 1 });
      expect(match.body.rules.timeLimitMs).toBe(500);
      expect(match.body.rules.opening).toBeUndefined();
      expect([match.body.white.id, match.body.black.id]).toEqual([game.white.id, game.black.id]);
      expect(await h.queue.queue.getJobState(game.matchId)).toBe('waiting');
    }
    const again = await start(t.id);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('tournaments/not-open');
  });
});

describe('GET /v1/tournaments', () => {
  it('lists tournaments newest first, by pages', async () => {
    const first = await created({ name: 'Older', format: 'round-robin', openings: 'standard' });
    const second = await created({ name: 'Newer', format: 'round-robin', openings: 'standard' });
    const page = await request(h.app).get('/v1/tournaments').query({ limit: 1 });
    expect(page.status).toBe(200);
    expect(page.body.items.map((t: { id: string }) => t.id)).toEqual([second.id]);
    const next = await request(h.app)
      .get('/v1/tournaments')
      .query({ limit: 1, cursor: page.body.nextCursor });
    expect(next.body.items.map((t: { id: string }) => t.id)).toEqual([first.id]);
  });

  it('answers 404 tournaments/not-found for an unknown id and 400 for a malformed one', async () => {
    const missing = await request(h.app).get('/v1/tournaments/tournament_01JC3T0B5Q8R2M4N6P8S0V2X4Z');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('tournaments/not-found');
    expect((await request(h.app).get('/v1/tournaments/match_01JC3S2Q7G5T1XK0V3JH3W6R2D')).status).toBe(400);
  });
});
