import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { schedulerFor } from '../support/scheduler.ts';

let h: Harness;
beforeAll(async () => {
  // One arena match a bot at a time, single matches: a round pairs each free bot once.
  h = await createHarness({ MATCHMAKING_MAX_CONCURRENT_PER_BOT: '1', MATCHMAKING_OPENINGS: 'standard' });
});
afterAll(() => h.close());

describe("a bot's matchmaking capacity", () => {
  it('is not used up by challenges aimed at it: a guest cannot keep it from rated games', async () => {
    const victim = await registerBot(h, { name: 'capacity-victim', url: 'http://127.0.0.1:9/' });
    const other = await registerBot(h, { name: 'capacity-other', url: 'http://127.0.0.1:9/' });
    // The cheapest attacker: a guest, whose challenges may take minutes a move and who never moves.
    const guest = (await request(h.app).post('/v1/guests')).body as { id: string; token: string };
    for (let i = 0; i < 2; i++) {
      const res = await request(h.app)
        .post('/v1/matches')
        .set(bearer(guest.token))
        .send({ black: victim.id, white: guest.id, rules: { timeLimitMs: 120_000 } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
    }
    const { scheduler, close } = await schedulerFor(h, 1);
    try {
      const paired = async () => {
        const ids = await scheduler.matchmake();
        const matches = await Promise.all(ids.map((id) => h.stores.matches.getMatch(id)));
        return matches.filter((match) => match?.black.id === victim.id || match?.white.id === victim.id);
      };
      const first = await paired();
      expect(first).toHaveLength(1);
      expect(first[0]!.rated).toBe(true);
      // The arena's own match counts: at its cap, the bot waits for it to end.
      expect(await paired()).toEqual([]);
      expect(await h.stores.matches.arenaMatchCounts([victim.id, other.id])).toEqual([1, 1]);
      expect(await h.stores.matches.activeMatchCounts([victim.id])).toEqual([3]);
    } finally {
      await close();
    }
  });
});
