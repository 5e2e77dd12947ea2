import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/store/keys.ts';
import { admin, bearer } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { schedulerFor } from '../support/scheduler.ts';

let h: Harness;
beforeAll(async () => {
  // Single matches, room for many at once: every round pairs each bot with whoever it may play.
  h = await createHarness({
    ALLOW_SAME_OPERATOR_GAMES: 'false',
    MATCHMAKING_OPENINGS: 'standard',
    MATCHMAKING_MAX_CONCURRENT_PER_BOT: '20',
  });
});
afterAll(() => h.close());

/** A bot registered from `address` (as the proxy in front reports it), served at `url` (else a pull bot). */
async function registerFrom(address: string, name: string, url?: string) {
  const res = await request(h.app)
    .post('/v1/bots')
    .set('x-forwarded-for', address)
    .send(url === undefined ? { name } : { name, url });
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

describe('a rated tournament', () => {
  const tournament = async (rated: boolean, bots: readonly string[]) => {
    const res = await request(h.app)
      .post('/v1/tournaments')
      .set(admin)
      .send({
        name: `operators-${rated}-${bots.length}`,
        format: 'round-robin',
        openings: 'standard',
        rated,
        bots,
      });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  const enter = (id: string, bot: { token: string }) =>
    request(h.app).post(`/v1/tournaments/${id}/entries`).set(bearer(bot.token));

  it('takes no bot by itself beside an entrant registered from its address or served on its host', async () => {
    // The admin's seeds are not checked: x1 and its host's twin are both in.
    const x1 = await registerFrom('203.0.113.20', 'entry-x1', 'http://127.0.0.5:9/');
    const twin = await registerFrom('198.51.100.20', 'entry-twin', 'http://127.0.0.5:10/');
    const rated = await tournament(true, [x1.id, twin.id]);
    const x2 = await registerFrom('203.0.113.20', 'entry-x2');
    const host = await registerFrom('192.0.2.20', 'entry-host', 'http://127.0.0.5:11/');
    const y1 = await registerFrom('192.0.2.21', 'entry-y1', 'http://127.0.0.6:9/');
    for (const bot of [x2, host]) {
      const res = await enter(rated, bot);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('tournaments/same-operator');
    }
    expect((await enter(rated, y1)).status).toBe(201);
    // Unrated, anyone enters.
    const unrated = await tournament(false, [x1.id]);
    expect((await enter(unrated, x2)).status).toBe(201);

    // Two of one address entering at once: one is in, the other checked against it.
    const z = [
      await registerFrom('203.0.113.30', 'entry-z1'),
      await registerFrom('203.0.113.30', 'entry-z2'),
    ];
    const open = await tournament(true, [y1.id]);
    const both = await Promise.all(z.map((bot) => enter(open, bot)));
    expect(both.map((res) => res.status).sort()).toEqual([201, 403]);
  });
});
