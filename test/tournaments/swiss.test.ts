import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../src/wiring/processes.ts';
import { admin, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  answer,
  type Handler,
  type LoopbackBot,
  playsFirstLegal,
  startLoopbackBot,
} from '../support/loopback-bot.ts';
import { holdsAfterJobs, matchQueueEvents } from '../support/queue-events.ts';

let h: Harness;
let workers: Awaited<ReturnType<typeof startWorkers>>;
const servers: LoopbackBot[] = [];
beforeAll(async () => {
  h = await createHarness({ SHUTDOWN_GRACE_MS: '0' });
  workers = await startWorkers(h.config, pino({ level: 'silent' }));
});
afterAll(async () => {
  await workers?.close();
  await Promise.all(servers.map((server) => server.close()));
  await h?.close();
});

const firstLegal = playsFirstLegal();

/** Answers the last legal move (a different game from `firstLegal`). */
const lastLegal: Handler = (seen, res) =>
  answer(res, 200, { action: JSON.parse(seen.body).legalMoves.at(-1) });

/** Plays one move in each match, then answers nonsense: each of its matches ends as a loss by its fault. */
function movesOnceThenGarbage(): Handler {
  const moved = new Set<string>();
  return (seen, res, req) => {
    const { matchId } = JSON.parse(seen.body);
    if (moved.has(matchId)) return answer(res, 200, 'I resign', 'text/plain');
    moved.add(matchId);
    return firstLegal(seen, res, req);
  };
}

async function pushBot(name: string, behaviour: Handler): Promise<RegisteredBot> {
  const server = await startLoopbackBot(behaviour);
  servers.push(server);
  return registerBot(h, { name, url: server.url });
}

interface Game {
  matchId: string | null;
  white: { id: string; name: string };
  black: { id: string; name: string };
  status: string;
  result: string | null;
}
interface Round {
  number: number;
  bye: { id: string } | null;
  games: Game[];
}

async function runSwiss(name: string, bots: readonly RegisteredBot[], rounds: number) {
  const created = await request(h.app)
    .post('/v1/tournaments')
    .set(admin)
    .send({
      name,
      format: 'swiss',
      rounds,
      gamesPerPairing: 1,
      bots: bots.map((bot) => bot.id),
      openings: 'standard',
      rules: { timeLimitMs: 2000 },
    });
  expect(created.status).toBe(201);
  const started = await request(h.app).post(`/v1/tournaments/${created.body.id}/start`).set(admin);
  expect(started.status).toBe(200);
  return created.body.id as string;
}

const tournament = async (id: string) => (await request(h.app).get(`/v1/tournaments/${id}`)).body;

/** The tournament once it has finished (each round is paired in the job of the last match before it). */
async function finished(id: string) {
  const jobs = await matchQueueEvents(h);
  try {
    await holdsAfterJobs(jobs, async () => (await tournament(id)).status === 'finished');
  } finally {
    await jobs.close();
  }
  return tournament(id);
}

const pairKey = (game: Game) => [game.white.id, game.black.id].sort().join(' ');

describe('a Swiss tournament of 5 bots over 3 rounds', { timeout: 150_000 }, () => {
  it('pairs no two bots twice, gives one bye a round to a new bot each time, and finishes', async () => {
    const bots = [
      await pushBot('swiss-first-a', firstLegal),
      await pushBot('swiss-last-a', lastLegal),
      await pushBot('swiss-first-b', playsFirstLegal(2)),
      await pushBot('swiss-last-b', lastLegal),
      // Faults every game after its first move: it loses each, and keeps being paired.
      await pushBot('swiss-faulty', movesOnceThenGarbage()),
    ];
    const id = await runSwiss('Five-bot Swiss', bots, 3);
    const t = await finished(id);
    const rounds = t.rounds as Round[];

    expect(rounds.map((round) => round.number)).toEqual([1, 2, 3]);
    for (const round of rounds) {
      expect(round.games, `round ${round.number}`).toHaveLength(2);
      expect(round.bye, `round ${round.number}`).not.toBeNull();
      const seated = [round.bye!.id, ...round.games.flatMap((g) => [g.white.id, g.black.id])];
      expect(new Set(seated).size, `everyone once in round ${round.number}`).toBe(5);
    }
    const pairings = rounds.flatMap((round) => round.games.map(pairKey));
    expect(new Set(pairings).size).toBe(pairings.length);
    const byes = rounds.map((round) => round.bye!.id);
    expect(new Set(byes).size).toBe(3);

    for (const game of rounds.flatMap((round) => round.games)) {
      const match = (await request(h.app).get(`/v1/matches/${game.matchId}`)).body;
      expect(match.status).toBe('finished');
      expect(match.tournament.id).toBe(id);
    }
    // Points: one per game and one per bye, all handed out.
    const points = t.standings.reduce((sum: number, row: { points: number }) => sum + row.points, 0);
    expect(points).toBe(6 + 3);
    expect(t.tiebreak).toBe('buchholz');

    const faulty = bots[4]!;
    const faultyGames = rounds.flatMap((round) =>
      round.games.filter((g) => g.white.id === faulty.id || g.black.id === faulty.id),
    );
    const faultyByes = byes.filter((bye) => bye === faulty.id).length;
    expect(faultyGames.length + faultyByes).toBe(3);
    for (const game of faultyGames) {
      const match = (await request(h.app).get(`/v1/matches/${game.matchId}`)).body;
      expect(match.result.reason).toBe('invalid-response');
      expect(match.result.fault.player).toBe(game.white.id === faulty.id ? 'white' : 'black');
    }
    const faultyRow = t.standings.find((row: { bot: { id: string } }) => row.bot.id === faulty.id);
    expect(faultyRow).toMatchObject({
      points: faultyByes,
      losses: faultyGames.length,
      games: faultyGames.length,
    });
  });
});

describe('a bot retired while its Swiss tournament runs', { timeout: 150_000 }, () => {
  it('plays the game it had begun, and is paired no more', async () => {
    const bots = [
      await pushBot('withdraw-a', playsFirstLegal(10)),
      await pushBot('withdraw-b', playsFirstLegal(10)),
      await pushBot('withdraw-c', playsFirstLegal(10)),
      await pushBot('withdraw-d', playsFirstLegal(10)),
    ];
    const id = await runSwiss('Withdrawal', bots, 3);
    const leaving = bots[0]!;
    expect((await request(h.app).delete(`/v1/bots/${leaving.id}`).set(admin)).status).toBe(204);

    const t = await finished(id);
    const rounds = t.rounds as Round[];
    const [first, ...later] = rounds;
    const seatedIn = (round: Round) => [
      round.bye?.id,
      ...round.games.flatMap((g) => [g.white.id, g.black.id]),
    ];
    expect(seatedIn(first!)).toContain(leaving.id);
    expect(first!.games.every((game) => game.status === 'finished')).toBe(true);
    expect(later.length).toBeGreaterThan(0);
    for (const round of later) expect(seatedIn(round)).not.toContain(leaving.id);
    expect(t.entrants.find((e: { id: string }) => e.id === leaving.id).withdrawn).toBe(true);
    const row = t.standings.find((r: { bot: { id: string } }) => r.bot.id === leaving.id);
    expect(row.games).toBe(1);
  });
});
