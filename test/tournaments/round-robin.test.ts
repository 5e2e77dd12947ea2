import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUSE_BOTS } from '../../src/house/roster.ts';
import { startWorkers } from '../../src/wiring/processes.ts';
import { admin } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { holdsAfterJobs, matchQueueEvents } from '../support/queue-events.ts';

let h: Harness;
let workers: Awaited<ReturnType<typeof startWorkers>>;
beforeAll(async () => {
  h = await createHarness({ HOUSE_BOTS: 'true', SHUTDOWN_GRACE_MS: '0' });
  workers = await startWorkers(h.config, pino({ level: 'silent' }));
});
afterAll(async () => {
  await workers?.close();
  await h?.close();
});

interface Match {
  id: string;
  status: string;
  white: { id: string };
  black: { id: string };
  rules: { opening?: string };
  tournament?: { id: string; round: number };
  result: { winner: 'white' | 'black' | null; reason: string };
  moves: { square: string; opening?: true }[];
}

const pairKey = (a: string, b: string) => [a, b].sort().join(' ');

/** What a bot scored in a match, read from the match record alone. */
function scoreIn(match: Match, botId: string): number {
  const side = match.white.id === botId ? 'white' : 'black';
  if (match.result.winner === null) return 0.5;
  return match.result.winner === side ? 1 : 0;
}

describe('a round robin of the four house bots, paired games from balanced openings', {
  timeout: 240_000,
}, () => {
  it('plays every pairing twice, colours swapped from one opening, and its standings agree with its matches', async () => {
    const created = await request(h.app)
      .post('/v1/tournaments')
      .set(admin)
      .send({
        name: 'House round robin',
        format: 'round-robin',
        bots: HOUSE_BOTS.map((bot) => bot.id),
        gamesPerPairing: 2,
        openings: 'balanced',
        rules: { timeLimitMs: 2000 },
      });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const jobs = await matchQueueEvents(h);
    try {
      expect((await request(h.app).post(`/v1/tournaments/${id}/start`).set(admin)).status).toBe(200);
      // Each round is paired as the last match of the one before ends, in that match's job.
      await holdsAfterJobs(
        jobs,
        async () => (await request(h.app).get(`/v1/tournaments/${id}`)).body.status === 'finished',
      );
    } finally {
      await jobs.close();
    }
    const t = (await request(h.app).get(`/v1/tournaments/${id}`)).body;
    expect(t.roundCount).toBe(6);
    expect(t.rounds).toHaveLength(6);
    expect(t.rounds.map((round: { number: number }) => round.number)).toEqual([1, 2, 3, 4, 5, 6]);

    // Every match of the tournament, from its own record.
    const games = t.rounds.flatMap((round: { number: number; games: { matchId: string }[] }) =>
      round.games.map((game) => ({ round: round.number, ...game })),
    );
    expect(games).toHaveLength(12);
    const matches: Match[] = [];
    for (const game of games) {
      const res = await request(h.app).get(`/v1/matches/${game.matchId}`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('finished');
      expect(res.body.tournament).toEqual({ id, round: game.round });
      matches.push(res.body);
    }

    // Each pairing: two games, each bot with each colour once, from the same balanced opening.
    const byPair = new Map<string, Match[]>();
    for (const m of matches) {
      const key = pairKey(m.white.id, m.black.id);
      byPair.set(key, [...(byPair.get(key) ?? []), m]);
    }
    expect(byPair.size).toBe(6);
    for (const [pair, two] of byPair) {
      expect(two, pair).toHaveLength(2);
      const [first, second] = two as [Match, Match];
      expect(second.white.id).toBe(first.black.id);
      expect(second.black.id).toBe(first.white.id);
      expect(first.rules.opening, pair).toMatch(/^o-[0-9a-f]{8}$/);
      expect(second.rules.opening).toBe(first.rules.opening);
      // The arena played the same opening plies before either bot moved, in both games.
      const openingPlies = (m: Match) => m.moves.filter((move) => move.opening).map((move) => move.square);
      expect(openingPlies(first).length).toBeGreaterThan(0);
      expect(openingPlies(second)).toEqual(openingPlies(first));
    }

    // Standings: points, games and W/D/L recomputed from the match records.
    for (const row of t.standings) {
      const own = matches.filter((m) => m.white.id === row.bot.id || m.black.id === row.bot.id);
      const scores = own.map((m) => scoreIn(m, row.bot.id));
      expect(row.games, row.bot.name).toBe(6);
      expect(row.points, row.bot.name).toBe(scores.reduce((a, b) => a + b, 0));
      expect([row.wins, row.draws, row.losses]).toEqual([
        scores.filter((s) => s === 1).length,
        scores.filter((s) => s === 0.5).length,
        scores.filter((s) => s === 0).length,
      ]);
    }
    const points = t.standings.map((row: { points: number }) => row.points);
    expect(points).toEqual([...points].sort((a, b) => b - a));
    expect(points.reduce((a: number, b: number) => a + b, 0)).toBe(12);
    expect(t.standings.map((row: { bot: { name: string } }) => row.bot.name).sort()).toEqual(
      HOUSE_BOTS.map((bot) => bot.name).sort(),
    );

    // The crosstable, in standings order: each cell holds the row bot's two games against the column bot.
    expect(t.crosstable.bots).toEqual(t.standings.map((row: { bot: unknown }) => row.bot));
    t.crosstable.bots.forEach((rowBot: { id: string }, i: number) => {
      t.crosstable.bots.forEach((colBot: { id: string }, j: number) => {
        const cell = t.crosstable.cells[i][j];
        if (i === j) {
          expect(cell).toEqual([]);
          return;
        }
        const played = byPair.get(pairKey(rowBot.id, colBot.id))!;
        const expected = played.map((m) => ({
          side: m.white.id === rowBot.id ? 'white' : 'black',
          score: scoreIn(m, rowBot.id),
        }));
        expect(cell.map((g: object) => JSON.stringify(g)).sort()).toEqual(
          expected.map((g) => JSON.stringify(g)).sort(),
        );
      });
    });

    // Strengths from these 12 games: every entrant, each rating inside its interval.
    expect(t.strengths).toHaveLength(4);
    for (const s of t.strengths) expect(s.lower).toBeLessThan(s.rating);
  });
});
