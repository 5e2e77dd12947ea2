import { connect } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooser, runPullBot } from '../../examples/bots/index.ts';
import { rateLimitPrefix } from '../../src/config.ts';
import { storeKeys } from '../../src/redis/keys.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchEvent } from '../support/match-events.ts';
import { matchWorkerFor, playOut } from '../support/match-worker.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { scanKeys } from '../support/redis-keys.ts';
import { serve } from '../support/serve.ts';
import { openSse, type SseConnection } from '../support/sse.ts';

describe('event streams and long polls', () => {
  let h: Harness;
  let site: Awaited<ReturnType<typeof serve>>;
  let base: string;
  beforeAll(async () => {
    h = await createHarness({ MAX_STREAMS_PER_BOT: '3', SSE_KEEPALIVE_MS: '200' });
    site = await serve(h);
    base = site.origin;
  });
  afterAll(async () => {
    await site.close();
    await h.close();
  });

  const events = (token: string) => fetch(`${base}/v1/bots/me/events`, { headers: bearer(token) });

  it('are capped per bot: past the cap a stream or a long poll answers 429 streams/too-many', async () => {
    const greedy = await registerBot(h, { name: 'stream-hog' });
    const other = await registerBot(h, { name: 'stream-neighbour' });
    const held: SseConnection[] = [];
    for (let i = 0; i < 3; i++) held.push(await openSse(`${base}/v1/bots/me/events`, bearer(greedy.token)));

    const refused = await events(greedy.token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(((await refused.json()) as { code: string }).code).toBe('streams/too-many');

    // A long poll that would wait counts too; one that answers at once holds nothing.
    const admin = await request(h.app)
      .post('/v1/matches')
      .set(bearer(h.config.adminToken!))
      .send({ black: greedy.id, white: other.id, rules: { timeLimitMs: 30_000 } });
    const poll = await request(h.app)
      .get(`/v1/matches/${admin.body.id}/state`)
      .query({ waitMs: 1000 })
      .set(bearer(greedy.token));
    expect(poll.status).toBe(429);
    expect(poll.body.code).toBe('streams/too-many');

    // Another bot's streams are not affected.
    const neighbour = await openSse(`${base}/v1/bots/me/events`, bearer(other.token));
    neighbour.close();

    // Closing one frees its place.
    held.pop()!.close();
    let again: Response | undefined;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      await again?.body?.cancel();
      again = await events(greedy.token);
    }
    expect(again?.status).toBe(200);
    await again?.body?.cancel();
    for (const connection of held) connection.close();
  });
});

describe('rate limits', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({
      RATE_LIMIT_PER_IP: '5',
      RATE_LIMIT_PER_TOKEN: '50',
      RATE_LIMIT_REGISTRATIONS_PER_HOUR: '3',
    });
  });
  afterAll(() => h.close());

  const rateKeys = () => scanKeys(h.redis, `${rateLimitPrefix(h.prefix)}:rate:*`);

  it('count a request with an unknown token against its address, and create no key for the token', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await request(h.app)
        .get('/v1/leaderboard')
        .set(bearer(`rvb_random-token-${i}-${Math.random()}`));
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const keys = await rateKeys();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/:rate:a:/);
  });

  it('give a verified token a budget of its own', async () => {
    const fresh = await createHarness({ RATE_LIMIT_PER_IP: '2', RATE_LIMIT_PER_TOKEN: '50' });
    try {
      const bot = await registerBot(fresh, { name: 'verified' });
      for (let i = 0; i < 5; i++) {
        expect((await request(fresh.app).get('/v1/bots/me/matches').set(bearer(bot.token))).status).toBe(200);
      }
      // The address spent one request registering: one more anonymous one, then none.
      expect((await request(fresh.app).get('/v1/leaderboard')).status).toBe(200);
      expect((await request(fresh.app).get('/v1/leaderboard')).status).toBe(429);
      expect((await request(fresh.app).get('/v1/bots/me/matches').set(bearer(bot.token))).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('limit registrations per address and hour, not counting refused ones', async () => {
    // A general limit far from this one's, which alone is tested here.
    const fresh = await createHarness({ RATE_LIMIT_REGISTRATIONS_PER_HOUR: '3', RATE_LIMIT_PER_IP: '1000' });
    try {
      const register = (name: string) => request(fresh.app).post('/v1/bots').send({ name });
      const statuses: number[] = [];
      for (const name of ['reg-1', 'reg-1', 'reg-2', 'reg-3', 'reg-4'])
        statuses.push((await register(name)).status);
      expect(statuses).toEqual([201, 409, 201, 201, 429]);
      const refused = await register('reg-5');
      expect(refused.body.code).toBe('rate-limited');
      expect(refused.body.detail).toMatch(/registrations/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await fresh.close();
    }
  });
});

describe('the rate limit and a pull bot', () => {
  let world: PullArena;
  beforeAll(async () => {
    world = await startPullArena({ RATE_LIMIT_PER_TOKEN: '5' });
  });
  afterAll(() => world.close());

  it('does not count the moves the arena asks for, only the other requests and the retries', async () => {
    const { h, arena, base, pushBot } = world;
    const puller = await registerBot(h, { name: 'busy-pull' });
    const pusher = await registerBot(h, { name: 'busy-push', url: pushBot.url });
    const stop = new AbortController();
    const running = runPullBot({
      arena: base,
      token: puller.token,
      choose: chooser('greedy'),
      signal: stop.signal,
    });
    // Whenever its stream opens, before the match or during it: a fresh stream starts with the
    // turns waiting for the bot.
    const id = await createMatch(h, pusher.id, puller.id, { rules: { timeLimitMs: 5000, overageMs: 0 } });
    expect(await arena.runner.play(id, new AbortController().signal)).toBe('finished');
    stop.abort();
    await running;
    const match = (await request(h.app).get(`/v1/matches/${id}`)).body;
    expect(match.result.reason).toBe('completed');
    const own = match.moves.filter((move: { player: string }) => move.player === 'white');
    expect(own.length).toBeGreaterThan(5); // more moves than the limit allows requests

    // A retry of a played move is not a move the arena asked for: it counts, up to the limit.
    const last = own.at(-1);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await request(h.app)
        .post(`/v1/matches/${id}/actions`)
        .set(bearer(puller.token))
        .send({ action: last.square, ply: last.ply });
      statuses.push(res.status);
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status === 200).length).toBeLessThan(5);
  });
});

describe('challenges', () => {
  it('are limited per bot and hour, refused ones not counted, and the admin not at all', async () => {
    const h = await createHarness({
      RATE_LIMIT_CHALLENGES_PER_HOUR: '2',
      MAX_ACTIVE_CHALLENGES_PER_BOT: '10',
    });
    try {
      const challenger = await registerBot(h, { name: 'hourly-challenger' });
      const opponent = await registerBot(h, { name: 'hourly-opponent' });
      const challenge = (body: Record<string, unknown>) =>
        request(h.app).post('/v1/matches').set(bearer(challenger.token)).send(body);
      const pairing = { black: challenger.id, white: opponent.id };
      expect((await challenge({ ...pairing, rated: true })).status).toBe(403);
      expect((await challenge(pairing)).status).toBe(202);
      expect((await challenge(pairing)).status).toBe(202);
      const third = await challenge(pairing);
      expect(third.status).toBe(429);
      expect(third.body.code).toBe('rate-limited');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      for (let i = 0; i < 3; i++) expect(await createMatch(h, challenger.id, opponent.id)).toMatch(/^match_/);
    } finally {
      await h.close();
    }
  });

  it('aimed at one bot are capped while queued or running, whoever made them; a house bot takes any number', async () => {
    const h = await createHarness({ MAX_CHALLENGES_AGAINST_BOT: '2', HOUSE_BOTS: 'true' });
    try {
      const target = await registerBot(h, { name: 'much-challenged' });
      const makers = [];
      for (let i = 0; i < 3; i++) makers.push(await registerBot(h, { name: `challenger-${i}` }));
      // Pull bots that never move: each challenge ends as a no-show once a worker plays it.
      const challenge = (maker: { id: string; token: string }, opponent: string) =>
        request(h.app)
          .post('/v1/matches')
          .set(bearer(maker.token))
          .send({ black: maker.id, white: opponent, rules: { timeLimitMs: 50, overageMs: 0 } });
      const made = [await challenge(makers[0]!, target.id), await challenge(makers[1]!, target.id)];
      expect(made.map((res) => res.status)).toEqual([202, 202]);
      const third = await challenge(makers[2]!, target.id);
      expect(third.status).toBe(429);
      expect(third.body.code).toBe('matches/opponent-busy');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      // Once they have ended there is room again; the arena's own matches never count.
      await playOut(
        h,
        made.map((res) => res.body.id as string),
      );
      expect(await createMatch(h, makers[0]!.id, target.id)).toMatch(/^match_/);
      expect((await challenge(makers[2]!, target.id)).status).toBe(202);
      // No worker plays them: four queued at once against a house bot.
      const house = (await h.stores.bots.activeBots()).find((bot) => bot.house !== null)!;
      for (const maker of makers.slice(0, 2)) {
        expect((await challenge(maker, house.id)).status).toBe(202);
        expect((await challenge(maker, house.id)).status).toBe(202);
      }
    } finally {
      await h.close();
    }
  });

  it('aimed at one bot from one address are capped, whatever bots and guests made them', async () => {
    // Other addresses as a reverse proxy on this host reports them.
    const h = await createHarness({ MAX_CHALLENGES_AGAINST_BOT_PER_ADDRESS: '2', TRUST_PROXY: 'loopback' });
    try {
      const [target, other, first, second] = [
        await registerBot(h, { name: 'address-target' }),
        await registerBot(h, { name: 'address-other-target' }),
        await registerBot(h, { name: 'address-maker-1' }),
        await registerBot(h, { name: 'address-maker-2' }),
      ];
      const guest = (await request(h.app).post('/v1/guests')).body as RegisteredBot;
      // Pull bots that never move: each challenge ends as a no-show once a worker plays it.
      const quick = { timeLimitMs: 50, overageMs: 0 };
      const made = [
        await challengeOf(h, first, target.id, quick),
        await challengeOf(h, guest, target.id, quick),
      ];
      expect(made.map((res) => res.status)).toEqual([202, 202]);
      // A third from the same address, by another bot: refused, though the bot's cap is not reached.
      const third = await challengeOf(h, second, target.id, quick);
      expect(third.status).toBe(429);
      expect(third.body.code).toBe('matches/opponent-busy');
      expect(third.body.detail).toMatch(/from your address/);
      // The same bot from another address, and another target from this one, are not held back.
      const elsewhere = await request(h.app)
        .post('/v1/matches')
        .set('x-forwarded-for', '198.51.100.9')
        .set(bearer(second.token))
        .send({ black: second.id, white: target.id, rules: quick });
      expect(elsewhere.status).toBe(202);
      const otherTarget = await challengeOf(h, second, other.id, quick);
      expect(otherTarget.status).toBe(202);
      // Where a challenge came from is neither served nor kept past its end.
      expect(made[0]!.body).not.toHaveProperty('origin');
      const keys = storeKeys(h.prefix);
      const hashOf = (id: string) => h.redis.hgetall(keys.match(id));
      expect((await hashOf(made[0]!.body.id)).origin).toMatch(/^[\w-]{16}$/);
      const ids = [...made, elsewhere, otherTarget].map((res) => res.body.id as string);
      await playOut(h, ids);
      for (const id of ids) expect(await hashOf(id)).not.toHaveProperty('origin');
      expect(await scanKeys(h.redis, `${keys.bot(target.id)}:challenged:*`)).toEqual([]);
      expect((await challengeOf(h, second, target.id, quick)).status).toBe(202);
    } finally {
      await h.close();
    }
  });

  it('made before the caps counted them are counted from the start of the API on (backfill)', async () => {
    const caps = { MAX_CHALLENGES_AGAINST_BOT: '2', MAX_ACTIVE_CHALLENGES_PER_BOT: '2' };
    const h = await createHarness(caps);
    try {
      const [target, maker, other] = [
        await registerBot(h, { name: 'backfill-target' }),
        await registerBot(h, { name: 'backfill-maker' }),
        await registerBot(h, { name: 'backfill-other' }),
      ];
      // No worker: they stay queued. As stored before the sets (and the origin) existed.
      const made = [await challengeOf(h, maker, target.id), await challengeOf(h, maker, target.id)];
      expect(made.map((res) => res.status)).toEqual([202, 202]);
      const ids = made.map((res) => res.body.id as string);
      const keys = storeKeys(h.prefix);
      const sets = [keys.botChallenges(maker.id), keys.botChallengesAgainst(target.id)];
      for (const id of ids) await h.redis.hdel(keys.match(id), 'origin');
      for (const key of [...sets, ...(await scanKeys(h.redis, `${keys.bot(target.id)}:challenged:*`))])
        await h.redis.del(key);
      // One ended after the backfill listed it (still in the queued set): it is not put back.
      const ended = await challengeOf(h, other, maker.id);
      await h.redis.hset(keys.match(ended.body.id), 'status', 'finished');
      await h.redis.zrem(keys.botChallenges(other.id), ended.body.id);
      await h.redis.zrem(keys.botChallengesAgainst(maker.id), ended.body.id);

      // The API starting again (as at a deploy) puts them back into the sets, and only them.
      const restarted = await createHarness({ ...caps, REDIS_PREFIX: h.prefix });
      try {
        for (const key of sets) expect(await h.redis.zrange(key, 0, -1)).toEqual([...ids].sort());
        expect(await h.redis.zcard(keys.botChallenges(other.id))).toBe(0);
        expect(await h.stores.matches.backfillActiveSets()).toBe(0);
        const third = await challengeOf(restarted, other, target.id);
        expect(third.status).toBe(429);
        expect(third.body.code).toBe('matches/opponent-busy');
        expect((await challengeOf(restarted, maker, other.id)).body.code).toBe('matches/too-many-active');
      } finally {
        await restarted.close();
      }
    } finally {
      await h.close();
    }
  });

  it('refused by a cap (a busy opponent), count against no budget', async () => {
    const h = await createHarness({ MAX_CHALLENGES_AGAINST_BOT: '1', RATE_LIMIT_CHALLENGES_PER_HOUR: '2' });
    try {
      const [busy, idle, other, blocker, retrier] = [
        await registerBot(h, { name: 'busy-target' }),
        await registerBot(h, { name: 'idle-target' }),
        await registerBot(h, { name: 'other-target' }),
        await registerBot(h, { name: 'slot-holder' }),
        await registerBot(h, { name: 'retrier' }),
      ];
      expect((await challengeOf(h, blocker, busy.id)).status).toBe(202);
      // Retried as Retry-After says, more times than the hour's budget.
      for (let i = 0; i < 3; i++) {
        const refused = await challengeOf(h, retrier, busy.id);
        expect(refused.body.code).toBe('matches/opponent-busy');
      }
      // Its hour's two challenges are still whole; a third is over the budget.
      expect((await challengeOf(h, retrier, idle.id)).status).toBe(202);
      expect((await challengeOf(h, retrier, other.id)).status).toBe(202);
      expect((await challengeOf(h, retrier, blocker.id)).body.code).toBe('rate-limited');
    } finally {
      await h.close();
    }
  });

  it('are limited per client address and hour too, for all its bots and guests together', async () => {
    const h = await createHarness({
      RATE_LIMIT_CHALLENGES_PER_HOUR: '2',
      RATE_LIMIT_CHALLENGES_PER_ADDRESS_PER_HOUR: '3',
      MAX_ACTIVE_CHALLENGES_PER_BOT: '10',
      // Another address as a reverse proxy on this host reports it.
      TRUST_PROXY: 'loopback',
    });
    try {
      const opponent = await registerBot(h, { name: 'address-opponent' });
      const first = await registerBot(h, { name: 'address-first' });
      const second = await registerBot(h, { name: 'address-second' });
      const guest = (await request(h.app).post('/v1/guests')).body as { id: string; token: string };
      const challenge = (token: string, black: string) =>
        request(h.app).post('/v1/matches').set(bearer(token)).send({ black, white: opponent.id });
      expect((await challenge(first.token, first.id)).status).toBe(202);
      expect((await challenge(first.token, first.id)).status).toBe(202);
      expect((await challenge(second.token, second.id)).status).toBe(202);
      // Each has budget left of its own; the address has none.
      for (const [token, id] of [
        [second.token, second.id],
        [guest.token, guest.id],
      ] as const) {
        const refused = await challenge(token, id);
        expect(refused.status).toBe(429);
        expect(refused.body.detail).toMatch(/from this address/);
      }
      // Another address (through a proxy the arena trusts) is not held back, nor the admin.
      const third = await registerBot(h, { name: 'address-third' });
      const elsewhere = await request(h.app)
        .post('/v1/matches')
        .set('x-forwarded-for', '198.51.100.7')
        .set(bearer(third.token))
        .send({ black: third.id, white: opponent.id });
      expect(elsewhere.status).toBe(202);
      expect(await createMatch(h, second.id, opponent.id)).toMatch(/^match_/);
    } finally {
      await h.close();
    }
  });

  it('count every challenge made, even when the client resets the connection before the answer', async () => {
    const h = await createHarness({
      RATE_LIMIT_CHALLENGES_PER_HOUR: '1000',
      MAX_ACTIVE_CHALLENGES_PER_BOT: '1000',
    });
    const site = await serve(h);
    try {
      const a = await registerBot(h, { name: 'abort-a' });
      const b = await registerBot(h, { name: 'abort-b' });
      const body = JSON.stringify({ black: a.id, white: b.id });
      const counted = async () => Number((await h.redis.get(`${h.prefix}:rate:challenge:b:${a.id}`)) ?? 0);
      const made = async () => (await h.stores.matches.listMatches({ limit: 100 })).items.length;
      const { port } = new URL(site.origin);
      // Reset after 0 to 7 ms: some resets land after the body was read and before the answer.
      for (let i = 0; i < 32; i++) {
        const [countedBefore, madeBefore] = [await counted(), await made()];
        await new Promise<void>((resolve) => {
          const socket = connect(Number(port), '127.0.0.1', () => {
            socket.write(
              `POST /v1/matches HTTP/1.1\r\nHost: arena\r\nAuthorization: Bearer ${a.token}\r\n` +
                `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
            );
            setTimeout(() => {
              socket.resetAndDestroy();
              resolve();
            }, i % 8);
          });
        });
        // Long enough for the request to finish on the server, whatever became of its answer.
        await new Promise((settle) => setTimeout(settle, 150));
        // A request cut before its body was read counts and makes nothing; none may make and not count.
        expect((await counted()) - countedBefore).toBeGreaterThanOrEqual((await made()) - madeBefore);
      }
    } finally {
      await site.close();
      await h.close();
    }
  });

  it("wait behind the arena's own matches for a worker", async () => {
    await withTwoBots('queued', async (h, a, b) => {
      const challenges = [(await challengeOf(h, a, b.id)).body.id, (await challengeOf(h, a, b.id)).body.id];
      // A person at /play is no bots' challenge: a guest's game does not wait behind the arena's.
      const guest = (await request(h.app).post('/v1/guests')).body;
      const person = await challengeOf(h, guest, a.id, { timeLimitMs: 100, overageMs: 0 });
      expect(person.status, JSON.stringify(person.body)).toBe(202);
      const arenas = await createMatch(h, b.id, a.id);
      // One worker slot, opened after all four were queued: the arena's match and the guest's go first.
      const worker = await matchWorkerFor(h, 1);
      try {
        const [arena, persons, ...others] = await startTimes(h, [arenas, person.body.id, ...challenges]);
        for (const at of others) expect(at).toBeGreaterThanOrEqual(Math.max(arena!, persons!));
      } finally {
        await worker.close();
      }
    });
  });

  it("keep their place behind the arena's matches when the reconciler queues them again", async () => {
    await withTwoBots('requeued', async (h, a, b) => {
      const challenges = [(await challengeOf(h, a, b.id)).body.id, (await challengeOf(h, a, b.id)).body.id];
      const arenas = await createMatch(h, b.id, a.id);
      // Every job lost (stored as queued, as when the queue was down), the challenges oldest: the
      // worker's reconciler queues all three again, in that order, while the queue is paused.
      const { queue } = h.queue;
      for (const id of [...challenges, arenas]) await queue.remove(id);
      await queue.pause();
      const worker = await matchWorkerFor(h, 1);
      try {
        await worker.worker.firstReconcile;
        expect(await queue.getJobCountByTypes('wait', 'prioritized')).toBe(3);
        await queue.resume();
        const [arena, ...others] = await startTimes(h, [arenas, ...challenges]);
        for (const at of others) expect(at).toBeGreaterThanOrEqual(arena!);
      } finally {
        await worker.close();
      }
    });
  });

  it("stop waiting behind the arena's matches once they have waited CHALLENGE_QUEUE_WAIT_MS", async () => {
    await withTwoBots(
      'aged',
      async (h, a, b) => {
        const { queue } = h.queue;
        await queue.pause();
        const old = [(await challengeOf(h, a, b.id)).body.id, (await challengeOf(h, b, a.id)).body.id];
        await new Promise((waited) => setTimeout(waited, 400));
        const fresh = (await challengeOf(h, a, b.id)).body.id;
        // The worker's reconcile at its start moves the two challenges that have waited 300 ms into
        // the arena's line; the one made since stays behind it. Then an arena match comes.
        const worker = await matchWorkerFor(h, 1);
        try {
          await worker.worker.firstReconcile;
          expect(await queue.getJobCountByTypes('wait')).toBe(2);
          expect(await queue.getJobCountByTypes('prioritized')).toBe(1);
          const arenas = await createMatch(h, b.id, a.id);
          await queue.resume();
          const [first, second, arena, last] = await startTimes(h, [...old, arenas, fresh]);
          // In the order they came into the arena's line: the old challenges, the arena's, then the new one.
          expect(first!).toBeLessThanOrEqual(second!);
          expect(second!).toBeLessThanOrEqual(arena!);
          expect(arena!).toBeLessThanOrEqual(last!);
        } finally {
          await worker.close();
        }
      },
      { CHALLENGE_QUEUE_WAIT_MS: '300' },
    );
  });

  it('are moved into the line by one worker at a time', async () => {
    await withTwoBots(
      'swept',
      async (h, a, b) => {
        const { queue } = h.queue;
        await queue.pause();
        for (let i = 0; i < 2; i++) await challengeOf(h, a, b.id);
        // Another worker is sweeping: this one leaves the challenges where they are.
        const sweeping = await h.stores.locks.tryLock('challenge-promotion', 10_000);
        const worker = await matchWorkerFor(h, 1);
        try {
          await worker.worker.reconcile();
          expect(await queue.getJobCountByTypes('prioritized')).toBe(2);
          await sweeping!();
          await worker.worker.reconcile();
          expect(await queue.getJobCountByTypes('prioritized')).toBe(0);
          expect(await queue.getJobCountByTypes('wait')).toBe(2);
        } finally {
          await worker.close();
        }
      },
      { CHALLENGE_QUEUE_WAIT_MS: '0' },
    );
  });
});

/** A challenge `maker` makes against `opponent` (with `rules`, if given), as answered. */
function challengeOf(
  h: Harness,
  maker: { readonly id: string; readonly token: string },
  opponent: string,
  rules?: Record<string, unknown>,
) {
  return request(h.app)
    .post('/v1/matches')
    .set(bearer(maker.token))
    .send({ black: maker.id, white: opponent, ...(rules ? { rules } : {}) });
}

/** Waits until every match of `ids` has started; answers when each did, in that order. */
async function startTimes(h: Harness, ids: readonly string[]): Promise<number[]> {
  // A match's live events begin once it has started (its first turn, move or end).
  await Promise.all(ids.map((id) => matchEvent(h, id, () => true)));
  const started = await Promise.all(ids.map((id) => h.stores.matches.getMatch(id)));
  return started.map((match) => match?.startedAt ?? Number.NaN);
}

/**
 * Runs `body` on a harness (challenges capped at 10 a bot, and `env`) with two bots, `<name>-a` and
 * `<name>-b`, answering on one loopback bot; closes them all after it.
 */
async function withTwoBots(
  name: string,
  body: (h: Harness, a: RegisteredBot, b: RegisteredBot) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const h = await createHarness({ MAX_ACTIVE_CHALLENGES_PER_BOT: '10', ...env });
  const bot = await startLoopbackBot(playsFirstLegal());
  try {
    const a = await registerBot(h, { name: `${name}-a`, url: bot.url });
    const b = await registerBot(h, { name: `${name}-b`, url: bot.url });
    await body(h, a, b);
  } finally {
    await bot.close();
    await h.close();
  }
}
