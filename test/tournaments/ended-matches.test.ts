import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eloRule } from '../../src/model/rating-rule.ts';
import { admin, registerBot } from '../support/api.ts';
import { CommandMonitor } from '../support/command-monitor.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { PrivateRedis } from '../support/private-redis.ts';

// A redis-server of this file's own: MONITOR sees this API's reads alone.
let server: PrivateRedis;
let h: Harness;
let commands: CommandMonitor;
beforeAll(async () => {
  server = await PrivateRedis.start();
  h = await createHarness({ REDIS_URL: server.url });
  commands = await CommandMonitor.start(h.redis);
});
afterAll(async () => {
  commands?.stop();
  await h?.close();
  await server?.stop();
});

interface Game {
  matchId: string;
  status: string;
}

/** GET /v1/tournaments/{id}, and which of `matchIds` it read from Redis to answer. */
async function getReading(id: string, matchIds: readonly string[]) {
  const keys = new Map(matchIds.map((matchId) => [h.stores.keys.match(matchId), matchId]));
  const read = new Set<string>();
  const stop = commands.listen((args, source) => {
    const matchId = keys.get(args[1] ?? '');
    if (source !== 'lua' && matchId !== undefined && args[0]?.toLowerCase() === 'hgetall') read.add(matchId);
  });
  const res = await request(h.app).get(`/v1/tournaments/${id}`);
  await commands.caughtUp();
  stop();
  expect(res.status).toBe(200);
  return { games: res.body.rounds.flatMap((round: { games: Game[] }) => round.games) as Game[], read };
}

describe('GET /v1/tournaments/{id}', () => {
  it('reads the games still to end from Redis, and an ended game only the first time', async () => {
    const bots = [];
    for (let i = 0; i < 4; i++)
      bots.push(await registerBot(h, { name: `ended-${i}`, url: 'http://127.0.0.1:9/' }));
    const created = await request(h.app)
      .post('/v1/tournaments')
      .set(admin)
      .send({
        name: 'Reads',
        format: 'round-robin',
        bots: bots.map((bot) => bot.id),
        gamesPerPairing: 1,
        openings: 'standard',
      });
    const id = created.body.id as string;
    expect((await request(h.app).post(`/v1/tournaments/${id}/start`).set(admin)).status).toBe(200);
    // No worker plays here: the first round's two games wait, queued.
    const first = await getReading(id, []);
    const [ending, waiting] = first.games.map((game) => game.matchId) as [string, string];
    expect(first.games.map((game) => game.status)).toEqual(['queued', 'queued']);

    await h.stores.matches.startMatch(ending, Date.now());
    const result = { winner: 'black', discs: { black: 40, white: 24 }, reason: 'completed' } as const;
    expect(await h.stores.matches.finishMatch(ending, result, Date.now(), eloRule(h.config.rating))).toBe(
      true,
    );
    // The game that ended is seen as it ended, read once more; the waiting one is read again.
    const second = await getReading(id, [ending, waiting]);
    expect(second.games.find((game) => game.matchId === ending)?.status).toBe('finished');
    expect([...second.read].sort()).toEqual([ending, waiting].sort());
    // From then on, only the game still waiting is read.
    const third = await getReading(id, [ending, waiting]);
    expect(third.games.find((game) => game.matchId === ending)?.status).toBe('finished');
    expect([...third.read]).toEqual([waiting]);
    expect(third.games).toEqual(second.games);
  });
});
