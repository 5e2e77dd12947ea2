import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotState } from '../../src/contract/index.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { bearer, registerBot } from '../support/api.ts';
import { answer, type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { botHeard, matchEnded } from '../support/match-events.ts';
import { matchWorkerFor } from '../support/match-worker.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { schedulerFor } from '../support/scheduler.ts';
import { openSse, type SseConnection } from '../support/sse.ts';

let world: PullArena;
let sched: Awaited<ReturnType<typeof schedulerFor>>;
let legal: LoopbackBot;
/** Declines its first challenge, accepts the others, plays the first legal move. */
let asking: LoopbackBot;
let challengesAsked = 0;
const streams: SseConnection[] = [];
beforeAll(async () => {
  world = await startPullArena({
    // Clients at several addresses, as a reverse proxy on this host reports them. The address and
    // host marks are waived (every test bot is on loopback): the owner rule holds all the same.
    TRUST_PROXY: 'loopback',
    ALLOW_SAME_OPERATOR_GAMES: 'true',
    MATCHMAKING_OPENINGS: 'standard',
    MATCHMAKING_MAX_CONCURRENT_PER_BOT: '100',
  });
  sched = await schedulerFor(world.h);
  legal = await startLoopbackBot(playsFirstLegal());
  asking = await startLoopbackBot((seen, res) => {
    const body = JSON.parse(seen.body) as { type?: string } & BotState;
    if (body.type !== 'challenge') return answer(res, 200, { action: body.legalMoves[0] });
    challengesAsked++;
    answer(res, 200, challengesAsked === 1 ? { accept: false, reason: 'later' } : { accept: true });
  });
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await Promise.all([legal.close(), asking.close()]);
  await sched.close();
  await world.close();
});

const app = () => world.h.app;

async function openAccount(name: string) {
  return (await request(app()).post('/v1/accounts').send({ name })).body as { id: string; token: string };
}

/** Registers a bot from `address` (as the proxy reports it), with an account's token or none. */
async function registerFrom(address: string, body: Record<string, unknown>, token?: string) {
  const req = request(app()).post('/v1/bots').set('x-forwarded-for', address);
  const res = await (token ? req.set(bearer(token)) : req).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string; token: string };
}

/** Opens the bot's event stream: once it is open, matchmaking sees the bot listening. */
async function listen(bot: { id: string; token: string }) {
  streams.push(await openSse(`${world.base}/v1/bots/me/events`, bearer(bot.token)));
  expect(await new RedisPullStore(world.h.redis, world.h.prefix).isOnline(bot.id)).toBe(true);
}

describe('an account with a push bot and a pull bot at two addresses', () => {
  it('never has them paired, in 20 rounds, while a third owner’s bot meets both; a bot without rated play is never paired', async () => {
    const ada = await openAccount('ada-owner');
    const push = await registerFrom('198.51.100.1', { name: 'ada-push', url: legal.url }, ada.token);
    const pull = await registerFrom('203.0.113.1', { name: 'ada-pull' }, ada.token);
    const carl = await openAccount('carl-owner');
    const third = await registerFrom('192.0.2.7', { name: 'carl-push', url: legal.url }, carl.token);
    const shy = await registerFrom('192.0.2.8', { name: 'shy-pull', ratedPlay: false });
    const shyPush = await registerFrom('192.0.2.9', { name: 'shy-push', url: legal.url, ratedPlay: false });
    await listen(pull);
    await listen(shy);

    const pairs = new Set<string>();
    for (let round = 0; round < 20; round++) {
      for (const id of await sched.scheduler.matchmake()) {
        const match = (await world.h.stores.matches.getMatch(id))!;
        pairs.add([match.black.name, match.white.name].sort().join(' v '));
      }
    }
    expect([...pairs].sort()).toEqual(['ada-pull v carl-push', 'ada-push v carl-push']);
    for (const bot of [push, pull, third])
      expect((await world.h.stores.bots.getBot(bot.id))?.owner).not.toBeNull();
    // Not paired, yet it plays what it accepts.
    const challenged = await request(app())
      .post('/v1/matches')
      .set(bearer(third.token))
      .send({ black: third.id, white: shyPush.id });
    expect(challenged.status).toBe(202);
  });
});

describe('a bot that asks for its challenges', () => {
  // An arena of its own: the matchmaking rounds above left forty arena matches queued, which a
  // challenge would wait behind.
  let quiet: PullArena;
  beforeAll(async () => {
    quiet = await startPullArena();
  });
  afterAll(() => quiet.close());

  it('declines one challenge and accepts the next, which plays to the end', async () => {
    const app = () => quiet.h.app;
    const owner = (await request(app()).post('/v1/accounts').send({ name: 'asker-owner' })).body;
    const target = (
      await request(app())
        .post('/v1/bots')
        .set(bearer(owner.token))
        .send({ name: 'e2e-asker', url: asking.url, challenges: 'ask' })
    ).body;
    const challenger = await registerBot(quiet.h, { name: 'e2e-challenger', url: legal.url });
    const create = () =>
      request(app())
        .post('/v1/matches')
        .set(bearer(challenger.token))
        .send({ black: challenger.id, white: target.id, rules: { timeLimitMs: 1000 } });
    const status = async (id: string) => (await quiet.h.stores.matches.getMatch(id))?.status;
    const first = (await create()).body;
    expect(first.status).toBe('pending');
    // The challenger hears of the decline in the write that declines it.
    await botHeard(quiet.h, challenger.id, 'challengeDeclined', first.id);
    expect(await status(first.id)).toBe('declined');
    const second = (await create()).body;
    // Accepted, it is queued, and a worker plays it (a declined one would never end).
    const worker = await matchWorkerFor(quiet.h);
    try {
      await matchEnded(quiet.h, second.id, 20_000);
    } finally {
      await worker.close();
    }
    const played = (await request(app()).get(`/v1/matches/${second.id}`)).body;
    expect(played.result.reason).toBe('completed');
    expect(played.rated).toBe(false);
  });
});
