import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotState } from '../../src/contract/index.ts';
import { admin, bearer } from '../support/api.ts';
import { runnerFor } from '../support/arena.ts';
import { createHarness, type Harness, steppingClock } from '../support/harness.ts';
import { answer, type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { schedulerFor } from '../support/scheduler.ts';

const MINUTE = 60_000;
const clock = steppingClock();
let h: Harness;
let arena: ReturnType<typeof runnerFor>;
let sched: Awaited<ReturnType<typeof schedulerFor>>;
let honest: LoopbackBot;
let feeding: LoopbackBot;

beforeAll(async () => {
  h = await createHarness(
    {
      // Two people at two addresses (as a reverse proxy on this host reports them): matchmaking pairs them.
      ALLOW_SAME_OPERATOR_GAMES: 'false',
      TRUST_PROXY: 'loopback',
      MATCHMAKING_OPENINGS: 'standard',
      MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1',
      MATCHMAKING_PAUSE_AFTER_FAULTS: '2',
      RATED_TIME_LIMIT_MS: '100',
      RATED_OVERAGE_MS: '0',
    },
    { clock },
  );
  arena = runnerFor(h);
  sched = await schedulerFor(h);
  honest = await startLoopbackBot(playsFirstLegal());
  // Plays its first move of each game, then lets its clock run out; on a host of its own
  // (127.0.0.2), or matchmaking would take the two for one operator's.
  feeding = await startLoopbackBot((seen, res) => {
    const state = JSON.parse(seen.body) as BotState;
    if (!state.history.some((move) => move.player === state.you)) {
      answer(res, 200, { action: state.legalMoves[0] });
    } else setTimeout(() => answer(res, 200, { action: state.legalMoves[0] }), 300);
  }, '127.0.0.2');
});
afterAll(async () => {
  await Promise.all([honest.close(), feeding.close()]);
  await sched.close();
  await arena.close();
  await h.close();
});

async function registerFrom(address: string, name: string, url: string) {
  const res = await request(h.app).post('/v1/bots').set('x-forwarded-for', address).send({ name, url });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; token: string };
}

const profile = async (id: string) => (await request(h.app).get(`/v1/bots/${id}`)).body;

/** One round of matchmaking, played out; answers the matches it made. */
async function round() {
  const ids = await sched.scheduler.matchmake();
  for (const id of ids) await arena.runner.play(id, new AbortController().signal);
  return Promise.all(ids.map(async (id) => (await request(h.app).get(`/v1/matches/${id}`)).body));
}

describe('a feeder that moves once in each rated game and lets its clock run out', () => {
  it('hands its partner no rating, loses its own, and its pause holds through edits until it ends', async () => {
    const partner = await registerFrom('198.51.100.1', 'fed-partner', honest.url);
    const feeder = await registerFrom('203.0.113.1', 'feeder', `http://127.0.0.2:${feeding.port}/turn`);
    const edit = (description: string) =>
      request(h.app).patch(`/v1/bots/${feeder.id}`).set(bearer(feeder.token)).send({ description });

    // Two forfeits pause it; each is a timeout after its first move, not a no-show.
    for (let game = 1; game <= 2; game++) {
      const [match, ...more] = await round();
      expect(more).toEqual([]);
      expect(match.result).toMatchObject({ reason: 'timeout', fault: { reason: 'timeout' } });
      await edit(`edited after game ${game}`);
    }
    const first = (await profile(feeder.id)).paused;
    expect(first).toMatchObject({ level: 1 });
    expect(Date.parse(first.until) - Date.parse(first.since)).toBe(5 * MINUTE);

    // Its edits, however many, and time short of the pause's end do not get it paired.
    expect((await edit('let me play')).body.paused).toMatchObject(first);
    clock.advance(5 * MINUTE - 1);
    expect(await round()).toEqual([]);

    // Its pause ends by itself; its streak stays, so its next fault pauses it again, four times longer.
    clock.advance(1);
    expect((await profile(feeder.id)).paused).toBeNull();
    const [third] = await round();
    expect(third.result.reason).toBe('timeout');
    const second = (await profile(feeder.id)).paused;
    expect(second).toMatchObject({ level: 2 });
    expect(Date.parse(second.until) - Date.parse(second.since)).toBe(20 * MINUTE);
    clock.advance(10 * MINUTE);
    await edit('surely now');
    expect(await round()).toEqual([]);

    // Three wins for the partner, in its record and nowhere else: its rating, rated games and
    // history are as they were; the feeder lost rating in each.
    expect(await profile(partner.id)).toMatchObject({ rating: 1500, wins: 3, games: 3, ratedGames: 0 });
    expect((await request(h.app).get(`/v1/bots/${partner.id}/ratings`)).body.items).toEqual([]);
    const fed = await profile(feeder.id);
    expect(fed).toMatchObject({ losses: 3, ratedGames: 3 });
    expect(fed.rating).toBeLessThan(1500 - 3 * 15);
    const history = (await request(h.app).get(`/v1/bots/${feeder.id}/ratings`)).body.items;
    expect(history.map((line: { score: number }) => line.score)).toEqual([0, 0, 0]);

    // The admin may lift a pause; the feeder's own token may not.
    const byItself = await request(h.app).delete(`/v1/bots/${feeder.id}/pause`).set(bearer(feeder.token));
    expect(byItself.status).toBe(403);
    const lifted = await request(h.app).delete(`/v1/bots/${feeder.id}/pause`).set(admin);
    expect(lifted.status).toBe(200);
    expect(lifted.body.paused).toBeNull();
    expect(await round()).toHaveLength(1);
  });
});
