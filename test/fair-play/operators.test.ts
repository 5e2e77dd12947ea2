import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/redis/keys.ts';
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
    // Clients at several addresses, as a reverse proxy on this host reports them.
    TRUST_PROXY: 'loopback',
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
          const match = (await h.stores.matches.getMatch(id))!;
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

  it('takes no bot by itself beside an entrant it would play registered from its address', async () => {
    // The admin's seeds are not checked: x1 and its address' twin are both in.
    const x1 = await registerFrom('203.0.113.20', 'entry-x1', 'http://127.0.0.5:9/');
    const twin = await registerFrom('203.0.113.20', 'entry-twin', 'http://127.0.0.7:9/');
    const rated = await tournament(true, [x1.id, twin.id]);
    const x2 = await registerFrom('203.0.113.20', 'entry-x2');
    const refused = await enter(rated, x2);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('tournaments/same-operator');
    // A URL naming an entrant's host proves nothing (anyone may name it): not refused for that.
    const host = await registerFrom('192.0.2.20', 'entry-host', 'http://127.0.0.5:11/');
    expect((await enter(rated, host)).status).toBe(201);
    // Unrated, anyone enters.
    const unrated = await tournament(false, [x1.id]);
    expect((await enter(unrated, x2)).status).toBe(201);

    // Two of one address entering at once: one is in, the other checked against it.
    const z = [
      await registerFrom('203.0.113.30', 'entry-z1'),
      await registerFrom('203.0.113.30', 'entry-z2'),
    ];
    const open = await tournament(true, [host.id]);
    const both = await Promise.all(z.map((bot) => enter(open, bot)));
    expect(both.map((res) => res.status).sort()).toEqual([201, 403]);
  });

  it('takes no bot by itself beside an entrant of its owner, whatever the addresses', async () => {
    const account = (await request(h.app).post('/v1/accounts').send({ name: 'entering-owner' })).body;
    const owned = async (address: string, name: string) =>
      (
        await request(h.app)
          .post('/v1/bots')
          .set('x-forwarded-for', address)
          .set(bearer(account.token))
          .send({ name })
      ).body as { id: string; token: string };
    const first = await owned('198.51.100.60', 'owned-entrant-1');
    const second = await owned('192.0.2.60', 'owned-entrant-2');
    const rated = await tournament(true, []);
    expect((await enter(rated, first)).status).toBe(201);
    const refused = await enter(rated, second);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('tournaments/same-operator');
    // An unrated one takes both.
    const unrated = await tournament(false, [first.id]);
    expect((await enter(unrated, second)).status).toBe(201);
  });

  it('of the gauntlet kind checks an entry against its challenger only, whom alone it plays', async () => {
    const challenger = await registerFrom('198.51.100.40', 'gauntlet-challenger');
    const g1 = await registerFrom('192.0.2.40', 'gauntlet-g1');
    const res = await request(h.app)
      .post('/v1/tournaments')
      .set(admin)
      .send({
        name: 'operators-gauntlet',
        format: 'gauntlet',
        openings: 'standard',
        rated: true,
        bots: [challenger.id, g1.id],
      });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const g2 = await registerFrom('192.0.2.40', 'gauntlet-g2');
    expect((await enter(res.body.id, g2)).status).toBe(201);
    const own = await registerFrom('198.51.100.40', 'gauntlet-own');
    expect((await enter(res.body.id, own)).body.code).toBe('tournaments/same-operator');
  });
});

describe('where a bot was registered from', () => {
  it('is keyed by the deployment, the same for every process of it, and dropped when the bot retires', async () => {
    const keys = storeKeys(h.prefix);
    const from = async (arena: Harness, name: string) => {
      const res = await request(arena.app)
        .post('/v1/bots')
        .set('x-forwarded-for', '203.0.113.50')
        .send({ name });
      expect(res.status).toBe(201);
      const value = await arena.redis.hget(
        storeKeys(arena.config.redis.prefix).bot(res.body.id),
        'registeredFrom',
      );
      return { id: res.body.id as string, token: res.body.token as string, value };
    };
    const first = await from(h, 'origin-first');
    expect(first.value).toMatch(/^[\w-]{16}$/);
    const retired = await request(h.app).delete(`/v1/bots/${first.id}`).set(bearer(first.token));
    expect(retired.status).toBe(204);
    expect(await h.redis.hget(keys.bot(first.id), 'registeredFrom')).toBeNull();
    // Another process of this deployment (another API on the same Redis prefix): the same value.
    const sibling = await createHarness({ REDIS_PREFIX: h.prefix, TRUST_PROXY: 'loopback' });
    try {
      expect((await from(sibling, 'origin-sibling')).value).toBe(first.value);
    } finally {
      await sibling.close();
    }
    // Another deployment: another key, so another value for the same address.
    const elsewhere = await createHarness({ TRUST_PROXY: 'loopback' });
    try {
      expect((await from(elsewhere, 'origin-elsewhere')).value).not.toBe(first.value);
    } finally {
      await elsewhere.close();
    }
  });
});
