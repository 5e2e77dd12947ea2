import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openingById, openingMoves, rulesOptions } from '../../src/reversi/index.ts';
import { registerBot } from '../support/api.ts';
import { runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { schedulerFor } from '../support/scheduler.ts';

interface WireMatch {
  id: string;
  black: { id: string };
  white: { id: string };
  rated: boolean;
  rules: { opening?: string; firstPlayer: 'black' | 'white'; timeLimitMs: number };
  moves: { square: string; opening?: true }[];
  result: { reason: string } | null;
}

let legal: LoopbackBot;
beforeAll(async () => {
  legal = await startLoopbackBot(playsFirstLegal());
});
afterAll(() => legal.close());

const getMatch = async (h: Harness, id: string): Promise<WireMatch> =>
  (await request(h.app).get(`/v1/matches/${id}`)).body;

describe('matchmaking with balanced openings (the default)', () => {
  let h: Harness;
  let sched: Awaited<ReturnType<typeof schedulerFor>>;
  let arena: ReturnType<typeof runnerFor>;
  beforeAll(async () => {
    h = await createHarness({ RATED_TIME_LIMIT_MS: '5000', RATED_OVERAGE_MS: '0' });
    sched = await schedulerFor(h, 3);
    arena = runnerFor(h);
  });
  afterAll(async () => {
    await arena.close();
    await sched.close();
    await h.close();
  });

  it('makes paired games: two rated matches a pairing, colours swapped, from one balanced opening', async () => {
    expect(h.config.matchmaking.openings).toBe('balanced');
    const bots = [];
    for (let i = 0; i < 4; i++) bots.push(await registerBot(h, { name: `paired-${i}`, url: legal.url }));
    const created = await sched.scheduler.matchmake();
    expect(created.length).toBeGreaterThan(0);
    expect(created.length % 2).toBe(0);
    const matches = await Promise.all(created.map((id) => getMatch(h, id)));
    for (let i = 0; i < matches.length; i += 2) {
      const [first, second] = [matches[i]!, matches[i + 1]!];
      expect(first.rated && second.rated).toBe(true);
      expect(openingById(first.rules.opening ?? 'standard')?.moves.length).toBeGreaterThan(0);
      expect(second.rules).toEqual(first.rules);
      expect([second.black.id, second.white.id]).toEqual([first.white.id, first.black.id]);
      expect(first.rules.timeLimitMs).toBe(5000);
    }
    // Each bot has as many whites as blacks, and the colour balance says so.
    const ids = bots.map((b) => b.id);
    expect(await h.stores.ratings.colorBalances(ids)).toEqual([0, 0, 0, 0]);
    // A bot is in at most its cap of matches: one paired game at the default of 2.
    for (const count of await h.stores.matches.activeMatchCounts(ids)) expect(count).toBeLessThanOrEqual(2);

    // Both games of a pair are played from the opening, the arena's plies first.
    for (const id of created.slice(0, 2)) {
      expect(await arena.runner.play(id, new AbortController().signal)).toBe('finished');
      const played = await getMatch(h, id);
      const opening = openingById(played.rules.opening!)!;
      expect(played.result?.reason).toBe('completed');
      expect(played.moves.slice(0, opening.moves.length).map((m) => m.square)).toEqual(
        openingMoves(opening, rulesOptions({ firstPlayer: played.rules.firstPlayer })),
      );
      expect(played.moves.slice(0, opening.moves.length).every((m) => m.opening)).toBe(true);
    }
  });

  it('draws the opening of each pairing anew', async () => {
    // Two bots with room for four paired games meet once a round, four rounds in a row.
    const duo = await createHarness({ MATCHMAKING_MAX_CONCURRENT_PER_BOT: '8' });
    const local = await schedulerFor(duo, 11);
    try {
      await registerBot(duo, { name: 'draw-a', url: legal.url });
      await registerBot(duo, { name: 'draw-b', url: legal.url });
      const drawn = new Set<string>();
      for (let round = 0; round < 4; round++) {
        const created = await local.scheduler.matchmake();
        expect(created).toHaveLength(2);
        drawn.add((await getMatch(duo, created[0]!)).rules.opening!);
      }
      expect(drawn.size).toBeGreaterThan(1);
    } finally {
      await local.close();
      await duo.close();
    }
  });
});

describe('matchmaking with MATCHMAKING_OPENINGS=standard', () => {
  it('makes one match a pairing, from the start position', async () => {
    const h = await createHarness({
      MATCHMAKING_OPENINGS: 'standard',
      MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1',
    });
    const sched = await schedulerFor(h, 5);
    try {
      for (let i = 0; i < 4; i++) await registerBot(h, { name: `single-${i}`, url: legal.url });
      const created = await sched.scheduler.matchmake();
      expect(created).toHaveLength(2);
      for (const id of created) expect((await getMatch(h, id)).rules).not.toHaveProperty('opening');
    } finally {
      await sched.close();
      await h.close();
    }
  });
});

describe('the configuration', () => {
  it('refuses balanced openings with room for fewer than two matches a bot or a round', () => {
    expect(() => loadConfig({ MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1' })).toThrow(ConfigError);
    expect(() => loadConfig({ MATCHMAKING_MAX_NEW_MATCHES: '1' })).toThrow(/MATCHMAKING_OPENINGS/);
    expect(
      loadConfig({ MATCHMAKING_OPENINGS: 'standard', MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1' }).matchmaking
        .openings,
    ).toBe('standard');
    expect(() => loadConfig({ MATCHMAKING_OPENINGS: 'random' })).toThrow(/MATCHMAKING_OPENINGS/);
  });
});
