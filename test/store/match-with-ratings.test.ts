import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let black: string;
let white: string;
beforeAll(async () => {
  h = await createHarness();
  black = (await registerBot(h, { name: 'with-ratings-black', url: 'http://127.0.0.1:9/' })).id;
  white = (await registerBot(h, { name: 'with-ratings-white', url: 'http://127.0.0.1:9/' })).id;
});
afterAll(() => h.close());

/** What the read must equal: the match, its moves and ratings as read one by one. */
async function readApart(id: string) {
  const [match, moves, bots] = await Promise.all([
    h.stores.matches.getMatch(id),
    h.stores.matches.getMoves(id),
    h.stores.bots.getBots([black, white]),
  ]);
  return { match, moves, ratings: { black: bots[0]!.rating, white: bots[1]!.rating } };
}

describe('reading a match with its players’ ratings', () => {
  it('reads what the separate reads read, the first time and once its players are known', async () => {
    const id = await createMatch(h, black, white);
    await h.stores.matches.startMatch(id, Date.now());
    expect(await h.stores.matches.getMatchWithRatings(id)).toEqual(await readApart(id));

    await h.stores.matches.appendMove(
      id,
      { ply: 1, player: 'white', square: 'e3', flips: [], latencyMs: 7 },
      {
        id: 'run',
        follows: false,
      },
    );
    await h.redis.hset(h.stores.keys.bot(black), 'rating', '1512.5');
    const again = await h.stores.matches.getMatchWithRatings(id);
    expect(again).toEqual(await readApart(id));
    expect(again?.moves.map((move) => move.square)).toEqual(['e3']);
    expect(again?.ratings.black).toBe(1512.5);
  });

  it('answers null for a match that does not exist, or no longer does', async () => {
    expect(await h.stores.matches.getMatchWithRatings('match_01JC3S0M0F7ZP4C8W4Y4N0Y8QH')).toBeNull();
    const id = await createMatch(h, black, white);
    await h.stores.matches.getMatchWithRatings(id);
    await h.redis.del(h.stores.keys.match(id));
    expect(await h.stores.matches.getMatchWithRatings(id)).toBeNull();
  });
});
