import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/redis/keys.ts';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { schedulerFor } from '../support/scheduler.ts';

let h: Harness;
let arena: ReturnType<typeof runnerFor>;
let legal: LoopbackBot;
let broken: LoopbackBot;
let sched: Awaited<ReturnType<typeof schedulerFor>>;
beforeAll(async () => {
  h = await createHarness({
    MATCHMAKING_PAUSE_AFTER_FAULTS: '3',
    // One match at a time: single matches from the start (paired games need room for two).
    MATCHMAKING_OPENINGS: 'standard',
    MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1',
    RATED_TIME_LIMIT_MS: '5000',
    RATED_OVERAGE_MS: '0',
  });
  arena = runnerFor(h);
  sched = await schedulerFor(h);
  legal = await startLoopbackBot(playsFirstLegal());
  broken = await startLoopbackBot((_seen, res) => res.writeHead(500).end('down'));
});
afterAll(async () => {
  await Promise.all([legal.close(), broken.close()]);
  await sched.close();
  await arena.close();
  await h.close();
});

async function play(black: RegisteredBot, white: RegisteredBot, rated = true) {
  const id = await createMatch(
    h,
    black.id,
    white.id,
    rated ? { rated } : { rules: { timeLimitMs: 5000, overageMs: 0 } },
  );
  await arena.runner.play(id, new AbortController().signal);
  return (await request(h.app).get(`/v1/matches/${id}`)).body;
}

describe('GET /v1/bots/{botId}/ratings', () => {
  it("lists the bot's rating after each rated match, and unrated matches change nothing", async () => {
    const a = await registerBot(h, { name: 'hist-a', url: legal.url });
    const b = await registerBot(h, { name: 'hist-b', url: legal.url });
    const first = await play(a, b);
    const unrated = await play(b, a, false);
    expect(unrated.ratings).toBeNull();
    const second = await play(b, a);
    const res = await request(h.app).get(`/v1/bots/${a.id}/ratings`);
    expect(res.status).toBe(200);
    expect(res.body.bot).toEqual({ id: a.id, name: 'hist-a' });
    expect(res.body.items.map((e: { matchId: string }) => e.matchId)).toEqual([first.id, second.id]);
    expect(res.body.items[0]).toMatchObject({
      before: 1500,
      after: first.ratings.black.after,
      opponent: { id: b.id },
    });
    expect(res.body.items[1].before).toBe(res.body.items[0].after);
    const profile = (await request(h.app).get(`/v1/bots/${a.id}`)).body;
    expect(profile.games).toBe(2);
    expect(profile.rating).toBe(res.body.items[1].after);
  });

  it('is served from memory until the bot plays its next rated match or is renamed', async () => {
    const a = await registerBot(h, { name: 'kept-a', url: legal.url });
    const b = await registerBot(h, { name: 'kept-b', url: legal.url });
    const first = await play(a, b);
    const history = async () => (await request(h.app).get(`/v1/bots/${a.id}/ratings`)).body;
    expect((await history()).items.map((e: { matchId: string }) => e.matchId)).toEqual([first.id]);
    // Read once, it no longer reads the matches its entries come from: one gone reads the same.
    const matchKey = storeKeys(h.prefix).match(first.id);
    await h.redis.rename(matchKey, `${matchKey}:aside`);
    expect((await history()).items.map((e: { matchId: string }) => e.matchId)).toEqual([first.id]);
    await h.redis.rename(`${matchKey}:aside`, matchKey);
    // An unrated match changes nothing; a rated one and a new name are read at once.
    await play(b, a, false);
    const second = await play(b, a);
    expect((await history()).items.map((e: { matchId: string }) => e.matchId)).toEqual([first.id, second.id]);
    await request(h.app).patch(`/v1/bots/${a.id}`).set(bearer(a.token)).send({ name: 'kept-a2' }).expect(200);
    expect((await history()).bot).toEqual({ id: a.id, name: 'kept-a2' });
  });

  it('answers 404 for an unknown bot', async () => {
    expect((await request(h.app).get('/v1/bots/bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH/ratings')).status).toBe(404);
  });
});

describe('GET /v1/leaderboard', () => {
  it('ranks by rating with the Bradley–Terry strength once it is recomputed', async () => {
    // Every listed bot, ranked or not yet: few have the LEADERBOARD_MIN_GAMES a rank needs here.
    const listed = async () => {
      const page = (await request(h.app).get('/v1/leaderboard').query({ limit: 100 })).body;
      return { ...page, items: [...page.items, ...page.unranked] };
    };
    const before = await listed();
    expect(before.strengthComputedAt).toBeNull();
    expect(before.items.every((e: { strength: unknown }) => e.strength === null)).toBe(true);
    // Best rating first, in each of the two lists.
    for (const ranked of [true, false]) {
      const ratings = before.items
        .filter((e: { ranked: boolean }) => e.ranked === ranked)
        .map((e: { rating: number }) => e.rating);
      expect(ratings).toEqual([...ratings].sort((x: number, y: number) => y - x));
    }

    expect((await sched.scheduler.recomputeStrength()).rated).toBeGreaterThan(0);
    const after = await listed();
    expect(after.strengthComputedAt).not.toBeNull();
    const rated = after.items.filter((e: { games: number }) => e.games > 0);
    expect(rated.length).toBeGreaterThan(0);
    for (const entry of rated) {
      expect(entry.strength.lower).toBeLessThanOrEqual(entry.strength.rating);
      expect(entry.strength.upper).toBeGreaterThanOrEqual(entry.strength.rating);
    }
    const ranks = after.items
      .filter((e: { ranked: boolean }) => e.ranked)
      .map((e: { rank: number }) => e.rank);
    expect(ranks).toEqual(ranks.map((_: number, i: number) => i + 1));
  });
});

describe('a push bot whose matches keep ending by its faults', () => {
  it('is paused for matchmaking with the reason shown, and a change does not resume it', async () => {
    const good = await registerBot(h, { name: 'pause-good', url: legal.url });
    const bad = await registerBot(h, { name: 'pause-bad', url: broken.url });
    for (let i = 0; i < 3; i++) {
      const match = await play(good, bad);
      // It never made a move: no-shows, faults that lower its rating alone.
      expect(match.result).toMatchObject({ reason: 'no-show', fault: { reason: 'bot-error' } });
      expect(match.ratings.black.after).toBe(match.ratings.black.before);
      expect(match.ratings.white.after).toBeLessThan(match.ratings.white.before);
    }
    const paused = (await request(h.app).get(`/v1/bots/${bad.id}`)).body;
    expect(paused.paused.reason).toMatch(/last 3 matches ended by its faults/);
    expect(paused.rating).toBeLessThan(1500);
    expect(paused).toMatchObject({ games: 3, losses: 3 });
    expect((await request(h.app).get(`/v1/bots/${good.id}`)).body.paused).toBeNull();

    const created = await sched.scheduler.matchmake();
    const involved = await Promise.all(
      created.map(async (id) => (await request(h.app).get(`/v1/matches/${id}`)).body),
    );
    expect(involved.some((m) => m.black.id === bad.id || m.white.id === bad.id)).toBe(false);

    const changed = await request(h.app)
      .patch(`/v1/bots/${bad.id}`)
      .set(bearer(bad.token))
      .send({ url: legal.url });
    expect(changed.body.paused).toMatchObject(paused.paused);
  });
});

describe('a push bot another bot challenges to a time control it cannot keep', () => {
  it('is not paused, however often: the challenger chose the clock', async () => {
    const slow = await startLoopbackBot(playsFirstLegal(150));
    try {
      const victim = await registerBot(h, { name: 'far-away', url: slow.url });
      const challenger = await registerBot(h, { name: 'tight-clock', url: legal.url });
      for (let i = 0; i < 3; i++) {
        const created = await request(h.app)
          .post('/v1/matches')
          .set(bearer(challenger.token))
          .send({ black: challenger.id, white: victim.id, rules: { timeLimitMs: 50, overageMs: 0 } });
        expect(created.status, JSON.stringify(created.body)).toBe(202);
        await arena.runner.play(created.body.id, new AbortController().signal);
        const match = (await request(h.app).get(`/v1/matches/${created.body.id}`)).body;
        expect(match.result).toMatchObject({
          reason: 'no-show',
          fault: { player: 'white', reason: 'timeout' },
        });
      }
      expect((await request(h.app).get(`/v1/bots/${victim.id}`)).body.paused).toBeNull();
    } finally {
      await slow.close();
    }
  });
});

describe('matchmaking', () => {
  let mm: Harness;
  let mmSched: Awaited<ReturnType<typeof schedulerFor>>;
  beforeAll(async () => {
    mm = await createHarness({ MATCHMAKING_MAX_CONCURRENT_PER_BOT: '2', MATCHMAKING_MAX_NEW_MATCHES: '50' });
    mmSched = await schedulerFor(mm, 7);
  });
  afterAll(async () => {
    await mmSched.close();
    await mm.close();
  });

  it('pairs available bots without exceeding their concurrent matches, leaving offline pull bots out', async () => {
    const push = [];
    for (let i = 0; i < 5; i++) push.push(await registerBot(mm, { name: `mm-push-${i}`, url: legal.url }));
    const offline = await registerBot(mm, { name: 'mm-pull-offline' });
    const first = await mmSched.scheduler.matchmake();
    expect(first.length).toBeGreaterThan(0);
    const second = await mmSched.scheduler.matchmake();
    const matches = await Promise.all(
      [...first, ...second].map(async (id) => (await request(mm.app).get(`/v1/matches/${id}`)).body),
    );
    const load = new Map<string, number>();
    for (const match of matches) {
      for (const side of [match.black.id, match.white.id]) load.set(side, (load.get(side) ?? 0) + 1);
      expect(match.black.id).not.toBe(match.white.id);
      expect(match.rated).toBe(true);
    }
    for (const count of load.values()) expect(count).toBeLessThanOrEqual(2);
    expect(load.has(offline.id)).toBe(false);
    // Every match it made waits in the queue, and no other.
    const queued = await request(mm.app)
      .get('/v1/matches')
      .query({ status: 'queued', limit: 100 })
      .set(admin);
    expect(queued.status).toBe(200);
    expect(queued.body.items.map((m: { id: string }) => m.id).sort()).toEqual([...first, ...second].sort());
    // The colours it gave are counted for the next rounds: black minus white, bot by bot.
    const ids = [...load.keys()];
    const tally = ids.map((id) =>
      matches.reduce((sum, m) => sum + (m.black.id === id ? 1 : 0) - (m.white.id === id ? 1 : 0), 0),
    );
    expect(await mm.stores.ratings.colorBalances(ids)).toEqual(tally);
  });

  // Within one round two bots that both had black may meet, and one has black again: the pairing
  // evens colours out over rounds, from the balance it keeps, not match by match.
  describe('across rounds', () => {
    let duo: Harness;
    let duoSched: Awaited<ReturnType<typeof schedulerFor>>;
    beforeAll(async () => {
      // Single matches: a paired game gives both colours at once, so there is nothing to alternate.
      duo = await createHarness({
        MATCHMAKING_MAX_CONCURRENT_PER_BOT: '4',
        MATCHMAKING_OPENINGS: 'standard',
      });
      duoSched = await schedulerFor(duo, 11);
    });
    afterAll(async () => {
      await duoSched.close();
      await duo.close();
    });

    it('alternate colours: the bot that had black has white in the next round', async () => {
      const x = await registerBot(duo, { name: 'colour-x', url: legal.url });
      const y = await registerBot(duo, { name: 'colour-y', url: legal.url });
      // Two bots meet once a round. Rounds 1 and 3 start even (colours by lot); 2 and 4 do not.
      const colours: { black: string; white: string }[] = [];
      for (let round = 1; round <= 4; round++) {
        const created = await duoSched.scheduler.matchmake();
        expect(created).toHaveLength(1);
        const match = await request(duo.app).get(`/v1/matches/${created[0]}`);
        expect(match.status).toBe(200);
        colours.push({ black: match.body.black.id, white: match.body.white.id });
      }
      expect([colours[0]!.black, colours[0]!.white].sort()).toEqual([x.id, y.id].sort());
      expect(colours[1]).toEqual({ black: colours[0]!.white, white: colours[0]!.black });
      expect(colours[3]).toEqual({ black: colours[2]!.white, white: colours[2]!.black });
      expect(await duo.stores.ratings.colorBalances([x.id, y.id])).toEqual([0, 0]);
    });
  });
});
