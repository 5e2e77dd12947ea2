import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchState } from '../../src/contract/index.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchWorkerFor } from '../support/match-worker.ts';
import { PrivateRedis } from '../support/private-redis.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { pullApi } from './pull-api.ts';

// The README's advice for Redis ACLs, followed: the arena's user may touch its prefix's keys and
// channels and nothing else. A whole pull match (long polls, actions, moves, the finish) plays, and
// a rated push match through the queue and a worker, its result on the leaderboard.
let server: PrivateRedis;
let world: PullArena;
beforeAll(async () => {
  server = await PrivateRedis.start();
  const admin = new Redis(server.url);
  // The harness draws its prefix (test-<uuid>) as it starts: the user starts on every such prefix
  // and is narrowed to the arena's own once it is known.
  await admin.acl('SETUSER', 'arena', 'on', '>arena-secret', '~test-*', '&test-*', '+@all');
  world = await startPullArena({ REDIS_URL: `redis://arena:arena-secret@127.0.0.1:${server.port}` });
  const prefix = world.h.prefix;
  await admin.acl('SETUSER', 'arena', 'resetkeys', `~${prefix}:*`, 'resetchannels', `&${prefix}:*`);
  expect(await admin.acl('DRYRUN', 'arena', 'SPUBLISH', 'elsewhere', 'x')).toMatch(/no permissions/);
  admin.disconnect();
});
afterAll(async () => {
  await world?.close();
  await server?.stop();
});

describe("an arena whose Redis user has only its prefix's keys and channels", () => {
  it('plays a whole pull match', { timeout: 60_000 }, async () => {
    const { h, arena } = world;
    const { act, awaitTurn, state } = pullApi(h);
    const bots = {
      black: await registerBot(h, { name: 'scoped-black' }),
      white: await registerBot(h, { name: 'scoped-white' }),
    };
    const id = await createMatch(h, bots.black.id, bots.white.id, { rules: { timeLimitMs: 10_000 } });
    const played = arena.runner.play(id, new AbortController().signal);
    let turn: MatchState = await awaitTurn(id, bots.white);
    while (turn.toMove !== null) {
      const bot = bots[turn.toMove];
      turn = await awaitTurn(id, bot);
      if (turn.toMove === null) break;
      const res = await act(id, bot, { action: turn.legalMoves[0], ply: turn.ply });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      turn = res.body as MatchState;
    }
    await played;
    const final = (await state(id)).body as MatchState;
    expect(final.status).toBe('finished');
    expect(final.history.length).toBeGreaterThan(8);
  });
});

describe("an arena whose Redis user has only its prefix's keys and channels, with a match worker", () => {
  it('plays a rated push match through the queue and rates it', { timeout: 60_000 }, async () => {
    const { h } = world;
    const worker = await matchWorkerFor(h);
    const second = await startLoopbackBot(playsFirstLegal());
    try {
      const black = await registerBot(h, { name: 'scoped-push-black', url: world.pushBot.url });
      const white = await registerBot(h, { name: 'scoped-push-white', url: second.url });
      const id = await createMatch(h, black.id, white.id, { rated: true });
      await expect
        .poll(async () => (await request(h.app).get(`/v1/matches/${id}`)).body.status, { timeout: 30_000 })
        .toBe('finished');
      for (const bot of [black, white]) {
        const history = await request(h.app).get(`/v1/bots/${bot.id}/ratings`);
        expect(history.status).toBe(200);
        expect(history.body.items.map((entry: { matchId: string }) => entry.matchId)).toEqual([id]);
      }
    } finally {
      await second.close();
      await worker.close();
    }
  });
});
