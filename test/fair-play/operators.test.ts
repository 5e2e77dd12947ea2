import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/store/keys.ts';
import { bearer } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { schedulerFor } from '../support/scheduler.ts';

let h: Harness;
beforeAll(async () => {
  // Single matches, room for many at once: every round pairs each bot with whoever it may play.
  h = await createHarness({
    MATCHMAKING_PAIR_SAME_OPERATOR: 'false',
    MATCHMAKING_OPENINGS: 'standard',
    MATCHMAKING_MAX_CONCURRENT_PER_BOT: '20',
  });
});
afterAll(() => h.close());

/** A push bot registered from `address` (as the proxy in front reports it), served at `url`. */
async function registerFrom(address: string, name: string, url: string) {
  const res = await request(h.app).post('/v1/bots').set('x-forwarded-for', address).send({ name, url });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; token: string };
}

describe('matchmaking between bots of one operator', () => {
  it('never pairs two bots registered from one address or served on one host', async () => {
    // a1 and a2 from one address; a2 and b1 on one host (ports aside); c1 shares nothing.
    const a1 = await registerFrom('203.0.113.5', 'operator-a1', 'http://127.0.0.2:9/');
    const a2 = await registerFrom('203.0.113.5', 'operator-a2', 'http://127.0.0.3:9/');
    const b1 = await registerFrom('198.51.100.7', 'operator-b1', 'http://127.0.0.3:10/');
    const c1 = await registerFrom('192.0.2.1', 'operator-c1', 'http://127.0.0.4:9/');
    const names = new Map([a1, a2, b1, c1].map((bot, i) => [bot.id, ['a1', 'a2', 'b1', 'c1'][i]!]));
    const { scheduler, close } = await schedulerFor(h, 7);
    const pairs = new Set<string>();
    try {
      for (let round = 0; round < 5; round++) {
        for (const id of await scheduler.matchmake()) {
          const match = (await h.store.getMatch(id))!;
          pairs.add([names.get(match.black.id), names.get(match.white.id)].sort().join(' '));
        }
      }
    } finally {
      await close();
    }
    expect([...pairs].sort()).toEqual(['a1 b1', 'a1 c1', 'a2 c1', 'b1 c1']);

    // Where a bot was registered from is kept, and served to nobody, its owner included.
    expect((await h.redis.hget(storeKeys(h.prefix).bot(a1.id), 'registeredFrom')) ?? '').toMatch(
      /^[\w-]{16}$/,
    );
    const own = await request(h.app).get(`/v1/bots/${a1.id}`).set(bearer(a1.token));
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.body)).not.toMatch(/registeredFrom|203\.0\.113/);
  });
});
