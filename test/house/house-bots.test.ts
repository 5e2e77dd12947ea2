import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPullBot } from '../../examples/bots/pull.ts';
import { ensureHouseBots } from '../../src/arena/house-bots.ts';
import { chooseGreedy } from '../../src/house/greedy.ts';
import { HOUSE_BOTS } from '../../src/house/roster.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import type { PullStore } from '../../src/store/pull-store.ts';
import { admin, bearer, registerBot, storedKeys } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { schedulerFor } from '../support/scheduler.ts';
import { serve } from '../support/serve.ts';

let h: Harness;
let pull: PullStore;
let arena: ReturnType<typeof runnerFor>;
let site: Awaited<ReturnType<typeof serve>>;
let base: string;
beforeAll(async () => {
  h = await createHarness({ HOUSE_BOTS: 'true' });
  pull = new RedisPullStore(h.redis, h.prefix);
  arena = runnerFor(h);
  site = await serve(h);
  base = site.origin;
});
afterAll(async () => {
  await site.close();
  await arena.close();
  await pull.close();
  await h.close();
});

const house = (engine: string) => HOUSE_BOTS.find((bot) => bot.engine === engine)!;
const getMatch = async (id: string) => (await request(h.app).get(`/v1/matches/${id}`)).body;

describe('the house bots', () => {
  it('are registered at start, marked house on their profile and on the leaderboard', async () => {
    const listed = (await request(h.app).get('/v1/bots').query({ q: 'house-' })).body.items;
    expect(listed.map((bot: { name: string }) => bot.name).sort()).toEqual(
      HOUSE_BOTS.map((bot) => bot.name).sort(),
    );
    for (const bot of listed) {
      expect(bot).toMatchObject({ house: true, kind: 'house', acceptsChallenges: true, status: 'active' });
      expect(bot.url).toBeUndefined();
    }
    // Listed, ranked or not yet (they have no rated games here).
    const { items, unranked } = (await request(h.app).get('/v1/leaderboard')).body;
    const board = [...items, ...unranked];
    const ids = new Set(HOUSE_BOTS.map((bot) => bot.id));
    expect(
      board.filter((row: { house: boolean }) => row.house).map((row: { bot: { id: string } }) => row.bot.id),
    ).toEqual(expect.arrayContaining([...ids]));
    const guest = await registerBot(h, { name: 'not-a-house-bot' });
    const mine = (await request(h.app).get(`/v1/bots/${guest.id}`)).body;
    expect(mine).toMatchObject({ house: false, kind: 'pull' });
  });

  it('are registered once however many processes start at once, and again after a restart', async () => {
    const fresh = await createHarness();
    try {
      const deps = { now: Date.now(), random: (n: number) => Buffer.alloc(n, 7), startingRating: 1500 };
      const runs = await Promise.all([1, 2, 3, 4].map(() => ensureHouseBots(fresh.stores, deps)));
      expect(runs.flatMap((run) => run.registered).sort()).toEqual(HOUSE_BOTS.map((bot) => bot.name).sort());
      expect(runs.flatMap((run) => run.nameTaken)).toEqual([]);
      const keys = await storedKeys(fresh);
      expect(await ensureHouseBots(fresh.stores, deps)).toEqual({ registered: [], nameTaken: [] });
      expect(await storedKeys(fresh)).toEqual(keys);
      expect((await fresh.stores.bots.activeBots()).length).toBe(HOUSE_BOTS.length);
    } finally {
      await fresh.close();
    }
  });

  it('keep their names to themselves: house- names are refused on registration and rename', async () => {
    const taken = await request(h.app).post('/v1/bots').send({ name: 'House-Greedy2' });
    expect(taken.status).toBe(400);
    expect(taken.body.code).toBe('bots/name-reserved');
    const bot = await registerBot(h, { name: 'plain-name' });
    const renamed = await request(h.app)
      .patch(`/v1/bots/${bot.id}`)
      .set(bearer(bot.token))
      .send({ name: 'house-random2' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.code).toBe('bots/name-reserved');
    // Nor may a name have an id's form: a challenge naming it would reach the bot of that id.
    const idLike = await request(h.app).post('/v1/bots').send({ name: bot.id });
    expect(idLike.status).toBe(400);
    expect(idLike.body.code).toBe('bots/name-reserved');
  });

  it('cannot be changed or given a token, even by the admin, but can be retired by the admin', async () => {
    const greedy = house('greedy');
    const patched = await request(h.app)
      .patch(`/v1/bots/${greedy.id}`)
      .set(admin)
      .send({ url: 'http://127.0.0.1:1/' });
    expect(patched.status).toBe(403);
    expect(patched.body.code).toBe('bots/house-bot');
    const rotated = await request(h.app).post(`/v1/bots/${greedy.id}/token`).set(admin);
    expect(rotated.status).toBe(403);
    expect(rotated.body.code).toBe('bots/house-bot');
    expect((await request(h.app).get(`/v1/bots/${greedy.id}`)).body.kind).toBe('house');
  });

  it('take a new pull bot challenge at once, and play it to the end', async () => {
    const newcomer = await registerBot(h, { name: 'newcomer' });
    const strong = house('alphabeta:4');
    const created = await request(h.app)
      .post('/v1/matches')
      .set(bearer(newcomer.token))
      .send({ black: newcomer.id, white: strong.id });
    expect(created.status).toBe(202);
    expect(created.body.rated).toBe(false);
    const stop = new AbortController();
    const playing = runPullBot({
      arena: base,
      token: newcomer.token,
      choose: chooseGreedy,
      signal: stop.signal,
    });
    try {
      await arena.runner.play(created.body.id, new AbortController().signal);
    } finally {
      stop.abort();
      await playing;
    }
    const match = await getMatch(created.body.id);
    expect(match.result.reason).toBe('completed');
    expect(match.moves.length).toBeGreaterThan(20);
    expect(match.ratings).toBeNull();
  });

  it('play each other under every rules option, with legal moves only', async () => {
    const rulesOptions = [
      {},
      { firstPlayer: 'black' },
      { captureRule: 'single-direction' },
      { scoring: 'empties-to-winner' },
    ];
    for (const rules of rulesOptions) {
      const id = await createMatch(h, house('random').id, house('alphabeta:1').id, { rules });
      await arena.runner.play(id, new AbortController().signal);
      const match = await getMatch(id);
      expect(match.result.reason, JSON.stringify(rules)).toBe('completed');
      expect(match.result.fault).toBeUndefined();
    }
  });

  it('are available to matchmaking without listening to anything; they meet each other only if allowed', async () => {
    const houseIds = new Set(HOUSE_BOTS.map((bot) => bot.id));
    const houseOnly = <M extends { black: { id: string }; white: { id: string } }>(matches: M[]) =>
      matches.filter((m) => houseIds.has(m.black.id) && houseIds.has(m.white.id));
    const apart = await schedulerFor(h);
    try {
      const created = await Promise.all((await apart.scheduler.matchmake()).map(getMatch));
      expect(houseOnly(created)).toEqual([]);
    } finally {
      await apart.close();
    }
    const demo = await schedulerFor({
      ...h,
      config: { ...h.config, matchmaking: { ...h.config.matchmaking, houseVsHouse: true } },
    });
    try {
      const created = await Promise.all((await demo.scheduler.matchmake()).map(getMatch));
      expect(houseOnly(created).length).toBeGreaterThanOrEqual(1);
      for (const match of houseOnly(created)) {
        await arena.runner.play(match.id, new AbortController().signal);
        const played = await getMatch(match.id);
        expect(played.rated).toBe(true);
        expect(played.result.reason).toBe('completed');
        expect(played.ratings).not.toBeNull();
      }
    } finally {
      await demo.close();
    }
  });
});
