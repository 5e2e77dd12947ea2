import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUSE_BOTS } from '../../src/house/roster.ts';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchWorkerFor } from '../support/match-worker.ts';
import { matchJobDone, matchQueueEvents } from '../support/queue-events.ts';
import { schedulerFor } from '../support/scheduler.ts';

const HOUSE_RANDOM = HOUSE_BOTS.find((bot) => bot.name === 'house-random')!.id;
/** A guest's time to live here: 0.001 h, 3.6 s (the sweep is driven with its own clock, no sleeps). */
const TTL_HOURS = '0.001';
const TTL_MS = 3600;

let h: Harness;
let worker: Awaited<ReturnType<typeof matchWorkerFor>>;
let sched: Awaited<ReturnType<typeof schedulerFor>>;
let events: Awaited<ReturnType<typeof matchQueueEvents>>;
beforeAll(async () => {
  h = await createHarness({
    HOUSE_BOTS: 'true',
    GUEST_TTL_HOURS: TTL_HOURS,
    RATE_LIMIT_GUESTS_PER_HOUR: '1000',
  });
  worker = await matchWorkerFor(h);
  sched = await schedulerFor(h);
  events = await matchQueueEvents(h);
});
afterAll(async () => {
  await events?.close();
  await sched?.close();
  await worker?.close();
  await h?.close();
});

async function newGuest(app = h.app): Promise<RegisteredBot> {
  const res = await request(app).post('/v1/guests');
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id, name: res.body.name, token: res.body.token };
}

async function challenge(guest: RegisteredBot, body: Record<string, unknown>) {
  return request(h.app).post('/v1/matches').set(bearer(guest.token)).send(body);
}

/** Plays the guest's side through the public pull API (long polls, first legal move) to the end. */
async function playAsGuest(guest: RegisteredBot, matchId: string) {
  for (let turn = 0; turn < 200; turn++) {
    const state = (
      await request(h.app)
        .get(`/v1/matches/${matchId}/state`)
        .query({ waitMs: 5000 })
        .set(bearer(guest.token))
    ).body;
    if (state.status === 'finished' || state.status === 'aborted') return state;
    if (state.toMove === state.you && state.deadline !== null && state.legalMoves.length > 0) {
      const res = await request(h.app)
        .post(`/v1/matches/${matchId}/actions`)
        .set(bearer(guest.token))
        .send({ action: state.legalMoves[0], ply: state.ply });
      expect([200, 409]).toContain(res.status);
    }
  }
  throw new Error(`match ${matchId} did not end`);
}

/** Every bot the leaderboard lists, ranked or not. */
async function listedIds(): Promise<string[]> {
  const board = (await request(h.app).get('/v1/leaderboard').query({ limit: 100 })).body;
  return [...board.items, ...board.unranked].map((entry: { bot: { id: string } }) => entry.bot.id);
}

describe('POST /v1/guests', () => {
  it('registers a guest: a pull bot named guest-…, flagged guest, declining challenges, with its token once', async () => {
    const res = await request(h.app).post('/v1/guests');
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/v1/bots/${res.body.id}`);
    expect(res.body).toMatchObject({ guest: true, kind: 'pull', house: false, acceptsChallenges: false });
    expect(res.body.name).toMatch(/^guest-[0-9a-f]{8}$/);
    expect(res.body.token).toMatch(/^rvb_/);
    const me = await request(h.app).get('/v1/bots/me').set(bearer(res.body.token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: res.body.id, guest: true });
    const profile = (await request(h.app).get(`/v1/bots/${res.body.id}`)).body;
    expect(profile.guest).toBe(true);
    expect(profile.token).toBeUndefined();
  });

  it('gives every guest a name of its own', async () => {
    const names = new Set();
    for (let i = 0; i < 5; i++) names.add((await newGuest()).name);
    expect(names.size).toBe(5);
  });

  it('refuses a body with fields, naming each', async () => {
    const res = await request(h.app).post('/v1/guests').send({ name: 'me' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'body.name', message: 'is not a field this request takes' }]);
  });

  describe('past RATE_LIMIT_GUESTS_PER_HOUR from one address', () => {
    it('answers 429 with Retry-After, and registers nothing more', async () => {
      const limited = await createHarness({ RATE_LIMIT_GUESTS_PER_HOUR: '2' });
      try {
        await newGuest(limited.app);
        await newGuest(limited.app);
        const refused = await request(limited.app).post('/v1/guests');
        expect(refused.status).toBe(429);
        expect(refused.body.code).toBe('rate-limited');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        // Bots have a budget of their own.
        expect((await request(limited.app).post('/v1/bots').send({ name: 'still-welcome' })).status).toBe(
          201,
        );
      } finally {
        await limited.close();
      }
    });
  });
});

describe('a guest', () => {
  it('plays an unrated match against a house bot through the pull API, to its end', async () => {
    const guest = await newGuest();
    const res = await challenge(guest, {
      black: guest.id,
      white: HOUSE_RANDOM,
      rules: { timeLimitMs: 120_000, overageMs: 0 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ rated: false, rules: { timeLimitMs: 120_000, overageMs: 0 } });
    const end = await playAsGuest(guest, res.body.id);
    expect(end.result.reason).toBe('completed');
    const match = (await request(h.app).get(`/v1/matches/${res.body.id}`)).body;
    expect(match).toMatchObject({ status: 'finished', rated: false, ratings: null });
    expect(match.moves.filter((move: { player: string }) => move.player === 'black').length).toBeGreaterThan(
      5,
    );
    // Nothing counted: no rating, no rated game, no place on the leaderboard.
    const profile = (await request(h.app).get(`/v1/bots/${guest.id}`)).body;
    expect(profile).toMatchObject({ rating: 1500, games: 0, guest: true });
    expect(await listedIds()).not.toContain(guest.id);
    expect(await listedIds()).toContain(HOUSE_RANDOM);
  });

  it('gets a person’s time control when it names none: the guest default a move, no bank', async () => {
    const guest = await newGuest();
    const res = await challenge(guest, { black: HOUSE_RANDOM, white: guest.id });
    expect(res.status).toBe(202);
    expect(res.body.rules).toMatchObject({ timeLimitMs: 60_000, overageMs: 0 });
    await playAsGuest(guest, res.body.id);
  });

  it("may ask for up to GUEST_TIME_LIMIT_MS_MAX a move; a bot's challenge up to CHALLENGE_TIME_LIMIT_MS_MAX", async () => {
    const guest = await newGuest();
    const tooLong = await challenge(guest, {
      black: guest.id,
      white: HOUSE_RANDOM,
      rules: { timeLimitMs: 120_001 },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors).toEqual([
      { path: 'body.rules.timeLimitMs', message: 'must be between 50 and 120000' },
    ]);
    const bot = await registerBot(h, { name: 'patient-bot' });
    const botAsks = await request(h.app)
      .post('/v1/matches')
      .set(bearer(bot.token))
      .send({ black: bot.id, white: HOUSE_RANDOM, rules: { timeLimitMs: 600_001 } });
    expect(botAsks.status).toBe(400);
    expect(botAsks.body.errors).toEqual([
      { path: 'body.rules.timeLimitMs', message: 'must be between 50 and 600000' },
    ]);
    // The arena's own matches (the admin's here) keep TIME_LIMIT_MS_MAX.
    const adminAsks = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: bot.id, white: HOUSE_RANDOM, rules: { timeLimitMs: 60_000 } });
    expect(adminAsks.status).toBe(400);
    expect(adminAsks.body.errors).toEqual([
      { path: 'body.rules.timeLimitMs', message: 'must be between 50 and 30000' },
    ]);
    const game = (await request(h.app).get('/v1/games/reversi')).body;
    expect(game.limits.guestTimeLimitMs).toEqual({ min: 50, max: 120_000, default: 60_000 });
  });

  it('is never rated: the admin asking for a rated match with one is refused', async () => {
    const guest = await newGuest();
    const res = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: guest.id, white: HOUSE_RANDOM, rated: true });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('matches/guest-unrated');
  });

  it('cannot be challenged, changed or given a new token; names starting guest- are reserved', async () => {
    const guest = await newGuest();
    const bot = await registerBot(h, { name: 'challenger' });
    const declined = await request(h.app)
      .post('/v1/matches')
      .set(bearer(bot.token))
      .send({ black: bot.id, white: guest.id });
    expect(declined.status).toBe(409);
    expect(declined.body.code).toBe('matches/challenge-refused');
    const changed = await request(h.app)
      .patch(`/v1/bots/${guest.id}`)
      .set(bearer(guest.token))
      .send({ acceptsChallenges: true });
    expect(changed.status).toBe(403);
    expect(changed.body.code).toBe('bots/guest');
    expect((await request(h.app).post(`/v1/bots/${guest.id}/token`).set(bearer(guest.token))).status).toBe(
      403,
    );
    const impostor = await request(h.app).post('/v1/bots').send({ name: 'guest-12345678' });
    expect(impostor.status).toBe(400);
    expect(impostor.body.code).toBe('bots/name-reserved');
  });

  it('is not listed among the bots, and matchmaking never pairs it', async () => {
    const guest = await newGuest();
    const listed = (await request(h.app).get('/v1/bots').query({ limit: 100 })).body.items;
    expect(listed.map((bot: { id: string }) => bot.id)).not.toContain(guest.id);
    const everyone = (await request(h.app).get('/v1/bots').query({ limit: 100, includeRetired: 'true' })).body
      .items;
    expect(everyone.map((bot: { id: string }) => bot.id)).toContain(guest.id);
    const sparring = await startLoopbackBot(playsFirstLegal());
    try {
      await registerBot(h, { name: 'sparring', url: sparring.url });
      const made = await sched.scheduler.matchmake();
      expect(made.length).toBeGreaterThan(0); // the push bot against house bots
      for (const id of made) {
        const match = (await request(h.app).get(`/v1/matches/${id}`)).body;
        expect([match.black.id, match.white.id]).not.toContain(guest.id);
        await matchJobDone(h, events, id, 20_000);
      }
    } finally {
      await sparring.close();
    }
  });
});

describe('the sweep of idle guests (GUEST_TTL_HOURS)', () => {
  it('retires a guest once it has not played for the TTL: its token stops working, its matches stay', async () => {
    const idle = await newGuest();
    const player = await newGuest();
    const created = await challenge(player, { black: player.id, white: HOUSE_RANDOM });
    await playAsGuest(player, created.body.id);
    const match = (await request(h.app).get(`/v1/matches/${created.body.id}`)).body;
    const lastPlayed = Date.parse(match.finishedAt);

    // Just under the TTL after the player's game: the guest that never played is idle, the other not.
    const first = await sched.scheduler.sweepGuests(lastPlayed + TTL_MS - 1);
    expect(first).toContain(idle.id);
    expect(first).not.toContain(player.id);
    expect((await request(h.app).get('/v1/bots/me').set(bearer(idle.token))).status).toBe(401);
    expect((await request(h.app).get('/v1/bots/me').set(bearer(player.token))).status).toBe(200);

    // Past the TTL after its game, the player goes too; its match keeps its record and players.
    const events = h.stores.keys.botEvents(player.id);
    expect(await h.redis.exists(events)).toBe(1); // its turns, matchStarted, matchFinished
    const second = await sched.scheduler.sweepGuests(lastPlayed + TTL_MS + 1);
    expect(second).toContain(player.id);
    expect(second).not.toContain(idle.id); // retired once
    expect((await request(h.app).get('/v1/bots/me').set(bearer(player.token))).status).toBe(401);
    expect(await h.redis.exists(events)).toBe(0); // nobody can read them any more
    expect((await request(h.app).get(`/v1/bots/${player.id}`)).body).toMatchObject({
      status: 'retired',
      guest: true,
    });
    const kept = (await request(h.app).get(`/v1/matches/${created.body.id}`)).body;
    expect(kept).toMatchObject({ status: 'finished', black: { id: player.id, name: player.name } });
    const history = (await request(h.app).get('/v1/matches').query({ bot: player.id })).body.items;
    expect(history.map((m: { id: string }) => m.id)).toEqual([created.body.id]);
    // Bots are never swept, however long idle.
    expect(await listedIds()).toContain(HOUSE_RANDOM);
  });

  it('keeps a guest whose match is queued or running, however long ago it registered', async () => {
    const guest = await newGuest();
    const created = await challenge(guest, { black: guest.id, white: HOUSE_RANDOM });
    expect(created.status).toBe(202);
    const registered = Date.parse((await request(h.app).get(`/v1/bots/${guest.id}`)).body.createdAt);
    expect(await sched.scheduler.sweepGuests(registered + 10 * TTL_MS)).not.toContain(guest.id);
    expect((await request(h.app).get('/v1/bots/me').set(bearer(guest.token))).status).toBe(200);
    await playAsGuest(guest, created.body.id);
  });
});
