import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotState, components } from '../../src/contract/index.ts';
import { HOUSE_BOTS } from '../../src/house/roster.ts';
import { seededRandom } from '../../src/support/random.ts';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness, steppingClock } from '../support/harness.ts';
import { answer, type LoopbackBot, startLoopbackBot } from '../support/loopback-bot.ts';
import { playOut } from '../support/match-worker.ts';
import { schedulerFor } from '../support/scheduler.ts';
import { replaySolo, type SoloMatch } from './solo-truth.ts';

type Leaderboard = components['schemas']['SoloLeaderboard'];

const house = (engine: string) => HOUSE_BOTS.find((bot) => bot.engine === engine)!;

let h: Harness;
let pushBot: LoopbackBot;
let entrant: RegisteredBot;
let leagueMatches: string[];

beforeAll(async () => {
  h = await createHarness({ HOUSE_BOTS: 'true' });
  const random = seededRandom(7);
  pushBot = await startLoopbackBot((seen, res) => {
    const { legalActions = [] } = JSON.parse(seen.body) as BotState;
    answer(res, 200, legalActions[Math.floor(random() * legalActions.length)]);
  });
  entrant = await registerBot(h, { name: 'league-entrant', url: pushBot.url });
});
afterAll(async () => {
  await pushBot.close();
  await h.close();
});

/** A match as the admin reads it: league games are sealed from others until their week ends. */
async function matchOf(id: string): Promise<SoloMatch> {
  return (await request(h.app).get(`/v1/matches/${id}`).set(admin)).body as SoloMatch;
}

describe('the solo league', () => {
  it("enters the house bots that play the solo game once a week, on the scheduler's look", async () => {
    const { scheduler, close } = await schedulerFor(h);
    try {
      const first = await scheduler.runEvents();
      expect(first?.leagueEntries).toEqual([house('random').id, house('greedy').id]);
      const again = await scheduler.runEvents();
      expect(again?.leagueEntries).toEqual([]);
    } finally {
      await close();
    }
  });

  it("enters a bot once, with one game per layout of the week, on the league's rules", async () => {
    const league = (await request(h.app).get('/v1/solo/league')).body as components['schemas']['SoloLeague'];
    expect(league.layouts).toHaveLength(20);
    const res = await request(h.app).post('/v1/solo/league/entries').set(bearer(entrant.token));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ week: league.week, bot: { id: entrant.id, name: entrant.name } });
    leagueMatches = res.body.matches;
    expect(leagueMatches).toHaveLength(20);
    const matches = await Promise.all(leagueMatches.map(matchOf));
    expect(matches.map((match) => match.rules.layout)).toEqual(league.layouts);
    for (const match of matches) {
      expect(match).toMatchObject({ game: 'solo', rated: false, status: 'queued' });
      expect(match.rules).toMatchObject({ scoring: 'points', timeLimitMs: league.timeLimitMs });
    }
    // Every entry waits behind the arena's rated games, as challenges do: the house bots' too.
    const priority = async (id: string) => (await h.queue.queue.getJob(id))?.opts.priority ?? 0;
    const houseEntry = (await h.stores.soloLeague.entries(league.week)).find(
      (entry) => entry.botId === house('greedy').id,
    )!;
    const queued = [...leagueMatches, ...houseEntry.matchIds];
    expect(await Promise.all(queued.map(priority))).toEqual(queued.map(() => 10));
    const twice = await request(h.app).post('/v1/solo/league/entries').set(bearer(entrant.token));
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('solo/entered');
  });

  it('refuses a bot paused for its faults until its pause ends', async () => {
    const paused = await registerBot(h, { name: 'league-paused' });
    const until = Date.now() + 60_000;
    await h.redis.hset(h.stores.keys.bot(paused.id), {
      pausedReason: 'its last 3 matches ended by its faults',
      pausedAt: String(Date.now()),
      pausedUntil: String(until),
      pauseLevel: '1',
    });
    const res = await request(h.app).post('/v1/solo/league/entries').set(bearer(paused.token));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('solo/paused');
  });

  it('refuses a guest, and a caller without a token', async () => {
    const guest = await request(h.app).post('/v1/guests');
    const res = await request(h.app).post('/v1/solo/league/entries').set(bearer(guest.body.token));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('solo/guest');
    expect((await request(h.app).post('/v1/solo/league/entries')).status).toBe(401);
  });

  it('ranks by total score, ties to less time, each score what a replay of the records gives', async () => {
    const before = (await request(h.app).get('/v1/solo/leaderboard')).body as Leaderboard;
    expect(before.items.map((item) => item.played)).toEqual([0, 0, 0]);
    const entries = await h.stores.soloLeague.entries(before.week);
    await playOut(
      h,
      entries.flatMap((entry) => entry.matchIds),
      8,
    );
    const board = (await request(h.app).get('/v1/solo/leaderboard')).body as Leaderboard;
    expect(board.items).toHaveLength(3);
    for (const entry of entries) {
      const matches = await Promise.all(entry.matchIds.map(matchOf));
      const expected = {
        score: matches.reduce((sum, match) => sum + replaySolo(match).score, 0),
        timeUsedMs: matches.reduce(
          (sum, match) => sum + match.moves.reduce((time, move) => time + move.latencyMs, 0),
          0,
        ),
        played: 20,
        games: 20,
        house: entry.botId !== entrant.id,
      };
      expect(board.items.find((item) => item.bot.id === entry.botId)).toMatchObject(expected);
    }
    const order = board.items.map((item) => [item.score, item.timeUsedMs] as const);
    const sorted = [...order].sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    expect(order).toEqual(sorted);
    expect(board.items.map((item) => item.rank)).toEqual([1, 2, 3]);
    // Read again, the tallies kept from the records give the same standings.
    expect((await request(h.app).get(`/v1/solo/leaderboard?week=${board.week}`)).body).toEqual(board);
  });

  it("seals each entrant's games from everyone else until the week ends: record, state, events, export", async () => {
    const [id] = leagueMatches;
    const other = await registerBot(h, { name: 'league-peeker' });
    const sealed = async (path: string, token?: string) => {
      const req = request(h.app).get(path);
      const res = await (token === undefined ? req : req.set(bearer(token)));
      return [res.status, res.body.code];
    };
    for (const path of [
      `/v1/matches/${id}`,
      `/v1/matches/${id}/state`,
      `/v1/matches/${id}/export?format=json`,
    ]) {
      expect(await sealed(path), path).toEqual([403, 'matches/sealed']);
      expect(await sealed(path, other.token), path).toEqual([403, 'matches/sealed']);
      expect((await sealed(path, entrant.token))[0], path).toBe(200);
      expect((await request(h.app).get(path).set(admin)).status, path).toBe(200);
    }
    expect(await sealed(`/v1/matches/${id}/events`)).toEqual([403, 'matches/sealed']);
    const exported = await request(h.app)
      .get(`/v1/matches/export?bot=${entrant.id}&status=finished`)
      .set(bearer(other.token));
    expect(exported.status).toBe(200);
    expect(exported.text).toBe('');
    const own = await request(h.app)
      .get(`/v1/matches/export?bot=${entrant.id}&status=finished`)
      .set(bearer(entrant.token));
    expect(own.text.trim().split('\n')).toHaveLength(20);
    // Its summary stays listed, as every match's does.
    const listed = await request(h.app).get(`/v1/matches?bot=${entrant.id}&limit=50`);
    expect(listed.body.items.map((match: { id: string }) => match.id)).toContain(id);
  });

  it("leaves every entrant's two-player rating and tallies as they were", async () => {
    for (const id of [entrant.id, house('random').id, house('greedy').id]) {
      const bot = (await request(h.app).get(`/v1/bots/${id}`)).body;
      expect(bot).toMatchObject({ rating: h.config.rating.start, ratedGames: 0, games: 0 });
    }
  });

  it('answers 400 for a week that is no date, 404 for a day that starts no week', async () => {
    expect((await request(h.app).get('/v1/solo/leaderboard?week=last')).status).toBe(400);
    const res = await request(h.app).get('/v1/solo/leaderboard?week=2026-12-08');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('solo/no-week');
  });
});

describe('a league week once it has ended', () => {
  it('shows its games to everyone, and lets its layouts be practised', async () => {
    const clock = steppingClock();
    const later = await createHarness({}, { clock });
    try {
      const bot = await registerBot(later, { name: 'league-later' });
      const entered = await request(later.app).post('/v1/solo/league/entries').set(bearer(bot.token));
      expect(entered.status).toBe(201);
      const [id] = entered.body.matches as string[];
      const layout = (await request(later.app).get(`/v1/matches/${id}`).set(bearer(bot.token))).body.rules
        .layout;
      expect((await request(later.app).get(`/v1/matches/${id}`)).status).toBe(403);
      const practise = () => request(later.app).post('/v1/solo').set(bearer(bot.token)).send({ layout });
      expect((await practise()).status).toBe(403);
      clock.advance(8 * 24 * 3_600_000);
      expect((await request(later.app).get(`/v1/matches/${id}`)).status).toBe(200);
      expect((await request(later.app).get(`/v1/matches/${id}/state`)).status).toBe(200);
      expect((await practise()).status).toBe(202);
    } finally {
      await later.close();
    }
  });
});
