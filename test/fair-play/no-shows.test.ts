import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { bearer, registerBot } from '../support/api.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { schedulerFor } from '../support/scheduler.ts';
import { openSse } from '../support/sse.ts';

// A pull bot is paired while it listens to its event stream. One that listens and never moves
// (twenty of them, a review found, left three real bots no real rated game for a minute) is
// paused like a push bot whose matches end by its faults, and is served after the others meanwhile.
// Its turn names its opponent before its first move: each game it dodges so costs it rating, as a
// loss, and hands its opponent none; an edit does not lift its pause.
describe('a pull bot that listens and never moves (a dodger)', () => {
  let world: PullArena;
  let sched: Awaited<ReturnType<typeof schedulerFor>>;
  beforeAll(async () => {
    world = await startPullArena({
      MATCHMAKING_PAUSE_AFTER_FAULTS: '2',
      MATCHMAKING_OPENINGS: 'standard',
      MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1',
      RATED_TIME_LIMIT_MS: '100',
      RATED_OVERAGE_MS: '0',
    });
    sched = await schedulerFor(world.h);
  });
  afterAll(async () => {
    await sched.close();
    await world.close();
  });

  it('loses rating for each no-show, is paused after them, and an edit does not resume it', async () => {
    const { h, arena, base, pushBot } = world;
    const silent = await registerBot(h, { name: 'silent-listener' });
    // Its only possible opponent: a bot at fault is served after the others, so with more it would wait.
    const plays = await registerBot(h, { name: 'plays', url: pushBot.url });
    const stream = await openSse(`${base}/v1/bots/me/events`, bearer(silent.token));
    try {
      // Its stream is open: matchmaking sees it listening.
      expect(await new RedisPullStore(h.redis, h.prefix).isOnline(silent.id)).toBe(true);
      for (let round = 1; round <= 2; round++) {
        const [id, ...more] = await sched.scheduler.matchmake();
        expect(more).toEqual([]);
        await arena.runner.play(id!, new AbortController().signal);
        const match = (await request(h.app).get(`/v1/matches/${id}`)).body;
        expect([match.black.id, match.white.id].sort()).toEqual([silent.id, plays.id].sort());
        expect(match.result).toMatchObject({ reason: 'no-show', fault: { reason: 'timeout' } });
        const side = match.black.id === silent.id ? 'black' : 'white';
        const other = side === 'black' ? 'white' : 'black';
        expect(match.ratings[side].after).toBeLessThan(match.ratings[side].before);
        expect(match.ratings[other].after).toBe(match.ratings[other].before);
      }
      const profile = (await request(h.app).get(`/v1/bots/${silent.id}`)).body;
      expect(profile).toMatchObject({ losses: 2, ratedGames: 2 });
      expect(profile.rating).toBeLessThan(1500);
      expect(profile.paused.reason).toMatch(/last 2 matches ended by its faults/);
      expect(profile.paused.level).toBe(1);
      expect(Date.parse(profile.paused.until) - Date.parse(profile.paused.since)).toBe(5 * 60_000);
      expect((await request(h.app).get(`/v1/bots/${plays.id}`)).body).toMatchObject({
        rating: 1500,
        wins: 2,
        ratedGames: 0,
      });
      expect(await sched.scheduler.matchmake()).toEqual([]);

      // An edit leaves the pause as it was: it is still not paired.
      const edited = await request(h.app)
        .patch(`/v1/bots/${silent.id}`)
        .set(bearer(silent.token))
        .send({ description: 'back' });
      expect(edited.body.paused).toMatchObject(profile.paused);
      expect(await sched.scheduler.matchmake()).toEqual([]);
      // The bot sees its pause, why and until when, with the private detail.
      const me = (await request(h.app).get('/v1/bots/me').set(bearer(silent.token))).body;
      expect(me.paused).toMatchObject({ until: profile.paused.until, level: 1 });
      expect(me.paused.detail).toEqual(expect.any(String));
    } finally {
      stream.close();
    }
  });
});
