import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureHouseBots } from '../../src/arena/house-bots.ts';
import { HOUSE_BOTS } from '../../src/house/roster.ts';
import { admin } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
const [random, greedy] = HOUSE_BOTS.map((bot) => bot.id) as [string, string];
beforeAll(async () => {
  h = await createHarness();
  await ensureHouseBots(h.stores, { now: Date.now(), random: randomBytes, startingRating: 1500 });
});
afterAll(() => h.close());

/** What the API answers for a match, its moves and both players' rating histories. */
async function answers(id: string) {
  const match = await request(h.app).get(`/v1/matches/${id}`).set(admin);
  const list = await request(h.app).get('/v1/matches').query({ bot: greedy }).set(admin);
  const histories = await Promise.all(
    [random, greedy].map((bot) => request(h.app).get(`/v1/bots/${bot}/ratings`).set(admin)),
  );
  expect([match.status, list.status, ...histories.map((r) => r.status)]).toEqual([200, 200, 200, 200]);
  return { match: match.body, list: list.body, histories: histories.map((r) => r.body) };
}

/** Rewrites a finished match as the arena stored it before compact storage: JSON values, a list of JSON moves. */
async function rewriteInOldForm(id: string): Promise<void> {
  const k = h.stores.keys;
  const match = (await h.stores.matches.getMatch(id))!;
  const moves = await h.stores.matches.getMoves(id);
  await h.redis
    .multi()
    .hset(k.match(id), {
      black: JSON.stringify(match.black),
      white: JSON.stringify(match.white),
      rules: JSON.stringify(match.rules),
      result: JSON.stringify(match.result),
      ratings: JSON.stringify(match.ratings),
    })
    .del(k.moves(id))
    .rpush(k.moves(id), ...moves.map((move) => JSON.stringify(move)))
    .exec();
  for (const bot of [random, greedy]) {
    const entries = await h.stores.ratings.ratingHistory(bot);
    await h.redis
      .multi()
      .del(k.ratingHistory(bot))
      .rpush(k.ratingHistory(bot), ...entries.map((entry) => JSON.stringify(entry)))
      .exec();
  }
}

describe('compact storage', () => {
  describe('when a match was stored in the old form', () => {
    it('the API answers exactly as for the packed form, and reading packs its moves', async () => {
      const { runner, close } = runnerFor(h);
      const id = await createMatch(h, greedy, random, { rated: true });
      expect(await runner.play(id, new AbortController().signal)).toBe('finished');
      await close();
      const packed = await answers(id);
      expect(packed.match.moves.length).toBeGreaterThanOrEqual(9); // the shortest game (a wipeout); random play varies
      expect(packed.match.moves.some((move: { flips: string[] }) => move.flips.length > 0)).toBe(true);
      expect(packed.histories.every((history) => JSON.stringify(history).includes(id))).toBe(true);

      await rewriteInOldForm(id);
      expect(await h.redis.type(h.stores.keys.moves(id))).toBe('list');
      expect(await answers(id)).toEqual(packed);
      expect(await h.redis.type(h.stores.keys.moves(id))).toBe('string');
      expect(await answers(id)).toEqual(packed);
    });
  });

  describe('when an old-form move cannot be packed', () => {
    it('reads the moves as stored and leaves them in the old form', async () => {
      const { runner, close } = runnerFor(h);
      const id = await createMatch(h, greedy, random);
      expect(await runner.play(id, new AbortController().signal)).toBe('finished');
      await close();
      const moves = await h.stores.matches.getMoves(id);
      // A latency with a fraction of a millisecond: the compact form holds whole milliseconds.
      const odd = moves.map((move, i) => (i === 0 ? { ...move, latencyMs: move.latencyMs + 0.5 } : move));
      await h.redis
        .multi()
        .del(h.stores.keys.moves(id))
        .rpush(h.stores.keys.moves(id), ...odd.map((move) => JSON.stringify(move)))
        .exec();
      expect(await h.stores.matches.getMoves(id)).toEqual(odd);
      expect(await h.redis.type(h.stores.keys.moves(id))).toBe('list');
    });
  });

  describe('when a match was running at the upgrade', () => {
    it('goes on from its old-form moves, and its record reads the same', async () => {
      const { runner, close } = runnerFor(h);
      const id = await createMatch(h, random, greedy, { rated: true });
      await h.stores.matches.startMatch(id, Date.now());
      // Four plies in the old form, as a worker before the upgrade left them.
      const opening = [
        { ply: 1, player: 'white', square: 'f4', flips: ['e4'], latencyMs: 3 },
        { ply: 2, player: 'black', square: 'f3', flips: ['e4'], latencyMs: 4 },
        { ply: 3, player: 'white', square: 'e3', flips: ['e4'], latencyMs: 200 },
        { ply: 4, player: 'black', square: 'f5', flips: ['f4', 'e5'], latencyMs: 70_000 },
      ];
      await h.redis.rpush(h.stores.keys.moves(id), ...opening.map((move) => JSON.stringify(move)));
      await h.redis.hset(h.stores.keys.match(id), 'moveCount', '4');
      expect(await runner.play(id, new AbortController().signal)).toBe('finished');
      await close();
      const moves = await h.stores.matches.getMoves(id);
      expect(moves.slice(0, 4)).toEqual(opening);
      expect(moves.length).toBe((await h.stores.matches.getMatch(id))?.moveCount);
    });
  });
});
