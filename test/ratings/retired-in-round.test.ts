import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchStore } from '../../src/store/match-store.ts';
import { registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { schedulerFor } from '../support/scheduler.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ MATCHMAKING_OPENINGS: 'balanced' });
});
afterAll(() => h.close());

describe('a matchmaking round in which a paired bot retires', () => {
  it('makes no game for the bot that retired after the round read it, and still makes the other pairs', async () => {
    const bots = [];
    for (let i = 0; i < 4; i++)
      bots.push(await registerBot(h, { name: `leaving-${i}`, url: 'http://127.0.0.1:9/' }));
    // The store the round's matches go through: the first pair's write meets one of its bots
    // retired (by its owner, between the round's checks and the write).
    let retired: string | undefined;
    const racing = new Proxy(h.stores.matches, {
      get(target, name, receiver) {
        if (name !== 'createMatches') return Reflect.get(target, name, receiver);
        const createMatches: MatchStore['createMatches'] = async (matches, balance) => {
          if (retired === undefined) {
            retired = matches[0]?.black.id;
            await h.stores.bots.retireBot(retired ?? '');
          }
          return target.createMatches(matches, balance);
        };
        return createMatches;
      },
    });
    const sched = await schedulerFor(h, 5, { ...h.stores, matches: racing });
    try {
      const created = await sched.scheduler.matchmake();
      expect(retired).toBeDefined();
      const matches = await Promise.all(created.map((id) => h.stores.matches.getMatch(id)));
      // The other pair's two games were made; none names the bot that retired.
      expect(matches.length).toBe(2);
      for (const match of matches) expect([match?.black.id, match?.white.id]).not.toContain(retired);
      const { items } = await h.stores.matches.listMatches({ botId: retired ?? '', limit: 10 });
      expect(items).toEqual([]);
    } finally {
      await sched.close();
    }
  });
});
