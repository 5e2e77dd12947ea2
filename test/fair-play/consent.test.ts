import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, type RegisteredBot, registerBot, storedKeys } from '../support/api.ts';
import { runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { closedPort, type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';

let h: Harness;
let arena: ReturnType<typeof runnerFor>;
let healthy: LoopbackBot;
let thinker: LoopbackBot;
beforeAll(async () => {
  h = await createHarness({ RATED_TIME_LIMIT_MS: '5000', RATED_OVERAGE_MS: '0' });
  arena = runnerFor(h);
  healthy = await startLoopbackBot(playsFirstLegal());
  // A healthy bot that thinks 80 ms a move: fine under any sane limit, a timeout under 50 ms.
  thinker = await startLoopbackBot(playsFirstLegal(80));
});
afterAll(async () => {
  await Promise.all([healthy.close(), thinker.close()]);
  await arena.close();
  await h.close();
});

const challenge = (by: RegisteredBot, body: Record<string, unknown>) =>
  request(h.app).post('/v1/matches').set(bearer(by.token)).send(body);
const profile = async (bot: RegisteredBot) => (await request(h.app).get(`/v1/bots/${bot.id}`)).body;
const play = async (id: string) => {
  await arena.runner.play(id, new AbortController().signal);
  return (await request(h.app).get(`/v1/matches/${id}`)).body;
};

describe('an attacker forcing rated losses on another bot', () => {
  it('cannot create a rated match with its token: 403, and nothing is written', async () => {
    const attacker = await registerBot(h, { name: 'forcer', url: healthy.url });
    const victim = await registerBot(h, { name: 'forced', url: thinker.url });
    const before = await storedKeys(h);
    const res = await challenge(attacker, {
      black: attacker.id,
      white: victim.id,
      rated: true,
      rules: { timeLimitMs: 50, overageMs: 0 },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('matches/rated-by-arena-only');
    expect(await storedKeys(h)).toEqual(before);
  });

  it('gets only unrated matches under the limits it picks: the victim keeps its rating', async () => {
    const attacker = await registerBot(h, { name: 'picker', url: healthy.url });
    const victim = await registerBot(h, { name: 'picked', url: thinker.url });
    const res = await challenge(attacker, {
      black: attacker.id,
      white: victim.id,
      rules: { timeLimitMs: 50, overageMs: 0 },
    });
    expect(res.status).toBe(202);
    expect(res.body.rated).toBe(false);
    const match = await play(res.body.id);
    expect(match.result.reason).toBe('no-show');
    expect(match.ratings).toBeNull();
    expect(await profile(victim)).toMatchObject({ rating: 1500, games: 0, losses: 0 });
  });

  it('sees rated matches made by the arena played under the rated rules, never its own', async () => {
    const a = await registerBot(h, { name: 'rated-a', url: healthy.url });
    const b = await registerBot(h, { name: 'rated-b', url: healthy.url });
    const game = (await request(h.app).get('/v1/games/reversi')).body;
    expect(game.ratedRules).toMatchObject({ timeLimitMs: 5000, overageMs: 0, firstPlayer: 'white' });
    const named = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: a.id, white: b.id, rated: true, rules: { timeLimitMs: 50 } });
    expect(named.status).toBe(400);
    expect(named.body.code).toBe('matches/rated-rules-fixed');
    const rated = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: a.id, white: b.id, rated: true });
    expect(rated.status).toBe(202);
    expect(rated.body.rules).toEqual(game.ratedRules);
  });
});

describe('an attacker farming rating from a bot whose server is down', () => {
  it("gains no rating from its no-shows: they lower the down bot's rating alone", async () => {
    const farmer = await registerBot(h, { name: 'farmer', url: healthy.url });
    const down = await registerBot(h, { name: 'down', url: `http://127.0.0.1:${await closedPort()}/` });
    for (let i = 0; i < 3; i++) {
      // Rated, as the matchmaker makes them; the down bot moves first (white) and never answers.
      const res = await request(h.app)
        .post('/v1/matches')
        .set(admin)
        .send({ black: farmer.id, white: down.id, rated: true });
      const match = await play(res.body.id);
      expect(match.result).toMatchObject({
        reason: 'no-show',
        winner: 'black',
        fault: { player: 'white', reason: 'bot-error' },
      });
      expect(match.ratings.black.after).toBe(match.ratings.black.before);
      expect(match.ratings.white.after).toBeLessThan(match.ratings.white.before);
    }
    expect(await profile(farmer)).toMatchObject({ rating: 1500, games: 3, wins: 3, losses: 0 });
    expect((await request(h.app).get(`/v1/bots/${farmer.id}/ratings`)).body.items).toEqual([]);
    const fallen = await profile(down);
    expect(fallen).toMatchObject({ games: 3, wins: 0, losses: 3 });
    expect(fallen.rating).toBeLessThan(1500);
    const history = (await request(h.app).get(`/v1/bots/${down.id}/ratings`)).body.items;
    expect(history.map((item: { score: number }) => item.score)).toEqual([0, 0, 0]);
  });
});

describe('a challenge', () => {
  it('is refused with 409 matches/challenge-refused when the opponent does not accept challenges', async () => {
    const challenger = await registerBot(h, { name: 'asker', url: healthy.url });
    const shy = await registerBot(h, { name: 'shy', url: healthy.url, acceptsChallenges: false });
    expect((await profile(shy)).acceptsChallenges).toBe(false);
    const before = await storedKeys(h);
    const res = await challenge(challenger, { black: challenger.id, white: shy.id });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('matches/challenge-refused');
    expect(await storedKeys(h)).toEqual(before);

    // The admin's matches are not challenges; and the bot may change its mind.
    expect(
      (await request(h.app).post('/v1/matches').set(admin).send({ black: challenger.id, white: shy.id }))
        .status,
    ).toBe(202);
    const patched = await request(h.app)
      .patch(`/v1/bots/${shy.id}`)
      .set(bearer(shy.token))
      .send({ acceptsChallenges: true });
    expect(patched.body.acceptsChallenges).toBe(true);
    expect((await challenge(challenger, { black: challenger.id, white: shy.id })).status).toBe(202);
  });

  it('is refused with 403 against a paused bot and 409 against a retired one', async () => {
    const challenger = await registerBot(h, { name: 'asker-2', url: healthy.url });
    const paused = await registerBot(h, { name: 'paused-one', url: healthy.url });
    const bot = `${h.prefix}:bot:${paused.id}`;
    await h.redis.hset(
      bot,
      'pausedReason',
      'faults',
      'pausedAt',
      '1',
      'pausedUntil',
      String(Date.now() + 60_000),
    );
    const atPaused = await challenge(challenger, { black: paused.id, white: challenger.id });
    expect(atPaused.status).toBe(403);
    expect(atPaused.body.code).toBe('matches/challenge-declined');

    const retired = await registerBot(h, { name: 'retired-one', url: healthy.url });
    await request(h.app).delete(`/v1/bots/${retired.id}`).set(admin);
    const atRetired = await challenge(challenger, { black: challenger.id, white: retired.id });
    expect(atRetired.status).toBe(409);
    expect(atRetired.body.code).toBe('bots/retired');
  });
});

describe('the cap on active challenges', () => {
  it('answers 429 matches/too-many-active with Retry-After past the cap, even to a burst', async () => {
    const spammer = await registerBot(h, { name: 'spammer', url: healthy.url });
    const target = await registerBot(h, { name: 'target', url: healthy.url });
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => challenge(spammer, { black: spammer.id, white: target.id })),
    );
    const statuses = burst.map((res) => res.status).sort();
    expect(statuses).toEqual([202, 202, 429, 429, 429, 429, 429, 429]);
    const refused = burst.find((res) => res.status === 429)!;
    expect(refused.body.code).toBe('matches/too-many-active');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const mine = await request(h.app).get('/v1/matches').query({ bot: spammer.id });
    expect(mine.body.items).toHaveLength(2);

    // Once one ends, the bot may challenge again; the target itself was never limited.
    await play(mine.body.items[0].id);
    expect((await challenge(spammer, { black: spammer.id, white: target.id })).status).toBe(202);
    expect((await challenge(target, { black: target.id, white: spammer.id })).status).toBe(202);
  });
});
