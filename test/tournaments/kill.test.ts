import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchEnded, pliesPlayed } from '../support/match-events.ts';
import { holdsAfterJobs, matchQueueEvents } from '../support/queue-events.ts';
import { exited, spawnWorker } from '../support/worker-process.ts';

let h: Harness;
const servers: LoopbackBot[] = [];
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await h?.close();
});

async function pushBot(name: string, delayMs: number): Promise<RegisteredBot> {
  const server = await startLoopbackBot(playsFirstLegal(delayMs));
  servers.push(server);
  return registerBot(h, { name, url: server.url });
}

interface Round {
  number: number;
  games: { matchId: string }[];
}

const tournament = async (id: string) => (await request(h.app).get(`/v1/tournaments/${id}`)).body;
const matchStatus = async (id: string) => (await h.stores.matches.getMatch(id))?.status;

/** Every match in the store that names this tournament, by round. */
async function storedMatchesOf(id: string): Promise<Map<number, string[]>> {
  const ids = (
    await Promise.all(
      (['queued', 'running', 'finished', 'aborted'] as const).map((status) =>
        h.stores.matches.matchIdsInStatus(status, 10_000),
      ),
    )
  ).flat();
  const byRound = new Map<number, string[]>();
  for (const matchId of ids) {
    const match = await h.stores.matches.getMatch(matchId);
    if (match?.tournament?.id !== id) continue;
    byRound.set(match.tournament.round, [...(byRound.get(match.tournament.round) ?? []), matchId].sort());
  }
  return byRound;
}

describe('a Swiss tournament whose worker is killed with SIGKILL in the last match of a round', {
  timeout: 150_000,
}, () => {
  it('is taken over by another worker, which ends the match and pairs the next round exactly once', async () => {
    // All rated alike, so the seeds keep the entry order: the slow bot is seed 1 and plays in round 1
    // (the bye goes to the last seed), in the match that ends last.
    const bots = [
      await pushBot('kill-slow', 40),
      await pushBot('kill-b', 0),
      await pushBot('kill-c', 0),
      await pushBot('kill-d', 0),
      await pushBot('kill-e', 0),
    ];
    const created = await request(h.app)
      .post('/v1/tournaments')
      .set(admin)
      .send({
        name: 'Killed Swiss',
        format: 'swiss',
        rounds: 3,
        gamesPerPairing: 1,
        bots: bots.map((bot) => bot.id),
        openings: 'standard',
        rules: { timeLimitMs: 2000 },
      });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const started = await request(h.app).post(`/v1/tournaments/${id}/start`).set(admin);
    expect(started.status).toBe(200);
    const roundOne = (started.body.rounds as Round[])[0]!.games.map((game) => game.matchId);
    expect(roundOne).toHaveLength(2);

    const jobs = await matchQueueEvents(h);
    const first = spawnWorker(h);
    // The moment to kill: one match of round 1 has ended, the other is being played (its fourth ply
    // recorded), as the matches' live events tell.
    const endings = roundOne.map((matchId) => matchEnded(h, matchId, 60_000).then(() => matchId));
    // The other match's wait goes on after the race (it ends once the rescuers finish it).
    for (const ending of endings) ending.catch(() => {});
    const ended = await Promise.race(endings);
    const last = roundOne.find((matchId) => matchId !== ended)!;
    await pliesPlayed(h, last, 4, 60_000);
    first.kill('SIGKILL');
    await exited(first);
    expect(await matchStatus(last)).toBe('running');
    expect((await tournament(id)).rounds).toHaveLength(1);

    // Two workers take over: the dead one's match goes to one of them after its lock expires.
    const rescuers = [spawnWorker(h), spawnWorker(h)];
    try {
      await holdsAfterJobs(jobs, async () => (await tournament(id)).status === 'finished');
    } finally {
      for (const worker of rescuers) worker.kill('SIGTERM');
      await Promise.all(rescuers.map(exited));
      await jobs.close();
    }

    const t = await tournament(id);
    const rounds = t.rounds as Round[];
    expect(rounds.map((round) => round.number)).toEqual([1, 2, 3]);
    const killed = (await request(h.app).get(`/v1/matches/${last}`)).body;
    expect(killed.status).toBe('finished');
    expect(killed.moves.map((m: { ply: number }) => m.ply)).toEqual(
      killed.moves.map((_: unknown, i: number) => i + 1),
    );
    // Paired by the worker that ended the match, at once: not left to the periodic sweep (30 s).
    const endedAt = (await h.stores.matches.getMatch(last))!.finishedAt!;
    const pairedAt = (await h.stores.matches.getMatch(rounds[1]!.games[0]!.matchId))!.createdAt;
    expect(pairedAt - endedAt).toBeGreaterThanOrEqual(0);
    expect(pairedAt - endedAt).toBeLessThan(5000);
    // Exactly once: the store holds one set of matches per round, the round's own.
    const stored = await storedMatchesOf(id);
    expect([...stored.keys()].sort()).toEqual([1, 2, 3]);
    for (const round of rounds) {
      expect(stored.get(round.number), `round ${round.number}`).toEqual(
        round.games.map((g) => g.matchId).sort(),
      );
      expect(round.games).toHaveLength(2);
    }
    expect(await h.redis.hkeys(`${h.prefix}:tournament:${id}:rounds`)).toHaveLength(3);
    // Every bot sat in every round once: a game or a bye.
    for (const bot of bots) {
      const row = t.standings.find((r: { bot: { id: string } }) => r.bot.id === bot.id);
      const byes = (t.rounds as { bye: { id: string } | null }[]).filter((r) => r.bye?.id === bot.id).length;
      expect(row.games + byes, bot.name).toBe(3);
    }
  });
});
