import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TournamentProgress } from '../../src/arena/tournament-progress.ts';
import { RoundMaker } from '../../src/arena/tournament-rounds.ts';
import { RedisTournamentStore } from '../../src/redis/redis-tournament-store.ts';
import { systemClock } from '../../src/support/clock.ts';
import { admin, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';

/**
 * The step that pairs a round, driven by hand: matches are ended straight in the store (as a worker
 * does before it dies, leaving the next round to another), and no worker runs.
 */
let h: Harness;
let bots: RegisteredBot[];
beforeAll(async () => {
  h = await createHarness();
  bots = [];
  for (let i = 0; i < 4; i++) bots.push(await registerBot(h, { name: `progress-${i}` }));
});
afterAll(() => h?.close());

function progress(tournaments = new RedisTournamentStore(h.redis, h.prefix)) {
  return new TournamentProgress({
    stores: h.stores,
    tournaments,
    rounds: new RoundMaker({ queue: h.queue, clock: systemClock, random: (n) => randomBytes(n) }),
    clock: systemClock,
  });
}

const tournament = async (id: string) => (await request(h.app).get(`/v1/tournaments/${id}`)).body;

async function startSwiss(name: string, rounds: number, entrants = bots): Promise<string> {
  const created = await request(h.app)
    .post('/v1/tournaments')
    .set(admin)
    .send({
      name,
      format: 'swiss',
      rounds,
      gamesPerPairing: 2,
      bots: entrants.map((b) => b.id),
      openings: 'balanced',
    });
  expect(created.status).toBe(201);
  expect((await request(h.app).post(`/v1/tournaments/${created.body.id}/start`).set(admin)).status).toBe(200);
  return created.body.id;
}

/** Ends every match of the tournament's current round, white winning, without pairing anything. */
async function endCurrentRound(id: string): Promise<void> {
  const t = await tournament(id);
  for (const game of t.rounds.at(-1).games) {
    const ended = await h.stores.matches.finishMatch(
      game.matchId,
      { winner: 'white', discs: { black: 20, white: 44 }, reason: 'completed' },
      Date.now(),
      () => {
        throw new Error('tournament matches here are unrated');
      },
    );
    expect(ended).toBe(true);
  }
}

/** Every match in the store that names the tournament's round `round`. */
async function storedRound(id: string, round: number): Promise<string[]> {
  const ids = [
    ...(await h.stores.matches.matchIdsInStatus('queued', 10_000)),
    ...(await h.stores.matches.matchIdsInStatus('finished', 10_000)),
  ];
  const matches = await Promise.all(ids.map((matchId) => h.stores.matches.getMatch(matchId)));
  return matches
    .filter((m) => m?.tournament?.id === id && m.tournament.round === round)
    .map((m) => m!.id)
    .sort();
}

describe('pairing the next round', () => {
  it('happens once when many workers try at once', async () => {
    const id = await startSwiss('Crowded', 3);
    await endCurrentRound(id);
    const racers = Array.from({ length: 8 }, () => progress());
    await Promise.all(racers.map((racer) => racer.advance(id)));

    const t = await tournament(id);
    expect(t.rounds).toHaveLength(2);
    const second = t.rounds[1].games.map((g: { matchId: string }) => g.matchId).sort();
    // Two pairings, each a paired game: 4 matches, and not one more in the store.
    expect(second).toHaveLength(4);
    expect(await storedRound(id, 2)).toEqual(second);
    for (const matchId of second) expect(await h.queue.queue.getJobState(matchId)).toBe('waiting');
  });

  it('makes no match for a bot that retires between the pairing and its write, and pairs the round again without it', async () => {
    const leaving: RegisteredBot[] = [];
    for (let i = 0; i < 4; i++) leaving.push(await registerBot(h, { name: `leaving-${i}` }));
    const id = await startSwiss('Leaving', 3, leaving);
    await endCurrentRound(id);
    // The round's write meets one of its players retired (by its owner, after the pairing read it).
    const stored = new RedisTournamentStore(h.redis, h.prefix);
    let retired: string | undefined;
    const racing = new Proxy(stored, {
      get(target, name, receiver) {
        if (name !== 'addRound') return Reflect.get(target, name, receiver);
        const addRound: RedisTournamentStore['addRound'] = async (tournamentId, after, next) => {
          if (retired === undefined) {
            retired = next.matches[0]?.black.id ?? '';
            await h.stores.bots.retireBot(retired);
          }
          return target.addRound(tournamentId, after, next);
        };
        return addRound;
      },
    });
    await progress(racing).advance(id);

    expect(retired).toBeDefined();
    const second = (await tournament(id)).rounds[1];
    const matches = await Promise.all(
      (await storedRound(id, 2)).map((matchId) => h.stores.matches.getMatch(matchId)),
    );
    expect(matches.length).toBeGreaterThan(0);
    for (const match of matches) expect([match?.black.id, match?.white.id]).not.toContain(retired);
    // The retired bot's games are listed as not played; the round's matches are the ones stored.
    const played = second.games.filter((g: { matchId: string | null }) => g.matchId !== null);
    expect(played.map((g: { matchId: string }) => g.matchId).sort()).toEqual(
      matches.map((m) => m?.id).sort(),
    );
  });

  it('waits while a match of the round is still on', async () => {
    const id = await startSwiss('Unfinished', 3);
    const t = await tournament(id);
    await h.stores.matches.finishMatch(
      t.rounds[0].games[0].matchId,
      { winner: null, discs: { black: 32, white: 32 }, reason: 'completed' },
      Date.now(),
      () => ({ black: 0, white: 0 }),
    );
    await progress().advance(id);
    expect((await tournament(id)).rounds).toHaveLength(1);
  });

  it('is done by the sweep for a round whose last match ended without it, and the last round finishes the tournament', async () => {
    const id = await startSwiss('Swept', 3);
    for (const round of [2, 3]) {
      await endCurrentRound(id);
      expect((await tournament(id)).rounds).toHaveLength(round - 1);
      await Promise.all([progress().sweep(), progress().sweep()]);
      const t = await tournament(id);
      expect(t.rounds).toHaveLength(round);
      expect(await storedRound(id, round)).toHaveLength(4);
    }
    await endCurrentRound(id);
    await progress().sweep();
    const done = await tournament(id);
    expect(done.status).toBe('finished');
    expect(done.finishedAt).not.toBeNull();
    expect(await h.redis.sismember(`${h.prefix}:tournaments:running`, id)).toBe(0);
    // Paired games: each pairing's two games start from one opening, with colours swapped.
    for (const round of done.rounds) {
      const [a, b, c, d] = round.games;
      for (const [x, y] of [
        [a, b],
        [c, d],
      ]) {
        expect(y.white.id).toBe(x.black.id);
        expect(y.opening).toBe(x.opening);
        expect(x.opening).toMatch(/^o-/);
      }
    }
  });
});
