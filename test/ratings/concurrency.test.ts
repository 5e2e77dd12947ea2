import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchesEnded } from '../support/match-events.ts';
import { exited, spawnWorker } from '../support/worker-process.ts';

const MATCHES = 36;

let h: Harness;
let bot: LoopbackBot;
beforeAll(async () => {
  h = await createHarness();
  // Plays a legal move picked by the board itself, so results vary from match to match.
  bot = await startLoopbackBot((seen, res) => {
    const state = JSON.parse(seen.body);
    const pick = state.legalMoves[(state.ply * 7 + state.matchId.charCodeAt(20)) % state.legalMoves.length];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ action: pick }));
  });
});
afterAll(async () => {
  await bot.close();
  await h.close();
});

describe('rated matches finishing concurrently on several worker processes', { timeout: 120_000 }, () => {
  it('update every rating exactly once, and the ratings add up', async () => {
    const bots: RegisteredBot[] = [];
    for (let i = 0; i < 6; i++) bots.push(await registerBot(h, { name: `conc-${i}`, url: bot.url }));
    const ids: string[] = [];
    for (let i = 0; i < MATCHES; i++) {
      const black = bots[i % 6]!;
      const white = bots[(i * 5 + 1) % 6 === i % 6 ? (i + 1) % 6 : (i * 5 + 1) % 6]!;
      ids.push(await createMatch(h, black.id, white.id, { rated: true }));
    }
    const env = { ELO_K_PROVISIONAL: '20', ELO_K: '20', WORKER_CONCURRENCY: '4' };
    const workers = [spawnWorker(h, env), spawnWorker(h, env), spawnWorker(h, env)];
    try {
      await matchesEnded(h, ids, 100_000);
      expect(await h.stores.matches.matchIdsInStatus('finished', 1000)).toHaveLength(MATCHES);
    } finally {
      for (const worker of workers) worker.kill('SIGTERM');
      await Promise.all(workers.map(exited));
    }

    const matches = await Promise.all(
      ids.map(async (id) => (await request(h.app).get(`/v1/matches/${id}`)).body),
    );
    expect(matches.every((m) => m.status === 'finished' && m.ratings !== null)).toBe(true);
    // Every result counted once in the fit's tallies, whichever worker finished it.
    const tallies = await h.redis.hvals(`${h.prefix}:rated-tallies`);
    expect(tallies.reduce((sum, count) => sum + Number(count), 0)).toBe(MATCHES);

    let sum = 0;
    for (const b of bots) {
      const profile = (await request(h.app).get(`/v1/bots/${b.id}`)).body;
      const played = matches.filter((m) => m.black.id === b.id || m.white.id === b.id);
      const history = (await request(h.app).get(`/v1/bots/${b.id}/ratings`).query({ limit: 1000 })).body
        .items;
      expect(profile.games).toBe(played.length);
      expect(history).toHaveLength(played.length);
      expect(profile.wins + profile.losses + profile.draws).toBe(played.length);
      // Each update starts from the previous one: none lost to a race, none applied twice.
      history.forEach((entry: { before: number; after: number }, i: number) => {
        expect(entry.before).toBe(i === 0 ? 1500 : history[i - 1].after);
      });
      expect(profile.rating).toBe(history.at(-1).after);
      sum += profile.rating - 1500;
    }
    // With equal K for everyone, every match moves as many points one way as the other (the API
    // shows each rating to one decimal: at most 0.05 off each).
    expect(Math.abs(sum)).toBeLessThanOrEqual(0.05 * bots.length + 1e-9);
  });
});
