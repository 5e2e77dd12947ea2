import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { closedPort, type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';

let h: Harness;
let arena: ReturnType<typeof runnerFor>;
let legal: LoopbackBot;
beforeAll(async () => {
  h = await createHarness({
    MAX_BOTS_PER_ACCOUNT: '3',
    RATE_LIMIT_ACCOUNTS_PER_HOUR: '20',
    MAX_ACTIVE_CHALLENGES_PER_OWNER: '2',
  });
  arena = runnerFor(h);
  legal = await startLoopbackBot(playsFirstLegal());
});
afterAll(async () => {
  await legal.close();
  await arena.close();
  await h.close();
});

async function openAccount(name: string) {
  const res = await request(h.app).post('/v1/accounts').send({ name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string; token: string };
}

async function registerOwned(token: string, body: Record<string, unknown>) {
  const res = await request(h.app).post('/v1/bots').set(bearer(token)).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string; token: string; owner: { id: string; name: string } };
}

describe('POST /v1/accounts', () => {
  it('opens an account and shows its token once; the name is unique', async () => {
    const account = await openAccount('ada');
    expect(account.token).toMatch(/^rva_[\w-]{43}$/);
    expect(account.id).toMatch(/^account_/);
    const me = await request(h.app).get('/v1/accounts/me').set(bearer(account.token));
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: account.id,
      name: 'ada',
      status: 'active',
      createdAt: expect.any(String),
      passkeys: [],
    });
    expect(me.body.token).toBeUndefined();
    const taken = await request(h.app).post('/v1/accounts').send({ name: 'ADA' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('accounts/name-taken');
  });

  it('is limited per client address and hour', async () => {
    const limited = await createHarness({ RATE_LIMIT_ACCOUNTS_PER_HOUR: '2' });
    try {
      const open = (name: string) => request(limited.app).post('/v1/accounts').send({ name });
      expect([(await open('first-one')).status, (await open('second-one')).status]).toEqual([201, 201]);
      const third = await open('third-one');
      expect(third.status).toBe(429);
      expect(third.body.detail).toMatch(/accounts/);
    } finally {
      await limited.close();
    }
  });

  it('keeps only a hash of the token', async () => {
    const account = await openAccount('hashed');
    const stored = await h.redis.hgetall(`${h.prefix}:account:${account.id}`);
    expect(JSON.stringify(stored)).not.toContain(account.token);
  });

  it('refuses another principal at /v1/accounts/me', async () => {
    const bot = await registerBot(h, { name: 'not-an-account' });
    expect((await request(h.app).get('/v1/accounts/me').set(bearer(bot.token))).body.code).toBe(
      'auth/account-required',
    );
    expect((await request(h.app).get('/v1/accounts/me')).status).toBe(401);
  });
});

describe('a bot an account registers', () => {
  it('names its owner publicly, and shows its private fields to its owner alone', async () => {
    const owner = await openAccount('owner-one');
    const bot = await registerOwned(owner.token, { name: 'owned-push', url: legal.url });
    expect(bot.owner).toEqual({ id: owner.id, name: 'owner-one' });
    const anonymous = (await request(h.app).get(`/v1/bots/${bot.id}`)).body;
    expect(anonymous.owner).toEqual({ id: owner.id, name: 'owner-one' });
    expect(anonymous.url).toBeUndefined();
    expect(JSON.stringify(anonymous)).not.toContain(owner.token);
    expect((await request(h.app).get(`/v1/bots/${bot.id}`).set(bearer(owner.token))).body.url).toBe(
      legal.url,
    );
    const stranger = await openAccount('stranger');
    expect(
      (await request(h.app).get(`/v1/bots/${bot.id}`).set(bearer(stranger.token))).body.url,
    ).toBeUndefined();
  });

  it('is recovered by its owner when its token is lost: a new token, the old one stops working', async () => {
    const owner = await openAccount('owner-two');
    const bot = await registerOwned(owner.token, { name: 'lost-token' });
    const stranger = await openAccount('thief');
    const refused = await request(h.app).post(`/v1/bots/${bot.id}/token`).set(bearer(stranger.token));
    expect(refused.status).toBe(403);
    const rotated = await request(h.app).post(`/v1/bots/${bot.id}/token`).set(bearer(owner.token));
    expect(rotated.status).toBe(200);
    expect((await request(h.app).get('/v1/bots/me').set(bearer(bot.token))).status).toBe(401);
    expect((await request(h.app).get('/v1/bots/me').set(bearer(rotated.body.token))).body.id).toBe(bot.id);
  });

  it('is changed and retired by its owner, and by nobody else', async () => {
    const owner = await openAccount('owner-three');
    const bot = await registerOwned(owner.token, { name: 'managed' });
    const other = await openAccount('meddler');
    const patch = (token: string) =>
      request(h.app).patch(`/v1/bots/${bot.id}`).set(bearer(token)).send({ description: 'by the owner' });
    expect((await patch(other.token)).status).toBe(403);
    expect((await patch(owner.token)).body.description).toBe('by the owner');
    expect((await request(h.app).delete(`/v1/bots/${bot.id}`).set(bearer(other.token))).status).toBe(403);
    expect((await request(h.app).delete(`/v1/bots/${bot.id}`).set(bearer(owner.token))).status).toBe(204);
    expect((await request(h.app).get(`/v1/bots/${bot.id}`)).body.status).toBe('retired');
  });

  it('counts against its owner\u2019s cap of active bots', async () => {
    const owner = await openAccount('busy-owner');
    for (const name of ['cap-1', 'cap-2', 'cap-3']) await registerOwned(owner.token, { name });
    const fourth = await request(h.app).post('/v1/bots').set(bearer(owner.token)).send({ name: 'cap-4' });
    expect(fourth.status).toBe(409);
    expect(fourth.body.code).toBe('accounts/too-many-bots');
  });
});

describe('the challenges of an account’s bots', () => {
  it('are capped together, beside each bot’s own cap', async () => {
    const owner = await openAccount('challenging-owner');
    const one = await registerOwned(owner.token, { name: 'owner-challenger-1' });
    const two = await registerOwned(owner.token, { name: 'owner-challenger-2' });
    const target = await registerBot(h, { name: 'owner-target' });
    const challenge = (bot: { id: string; token: string }) =>
      request(h.app).post('/v1/matches').set(bearer(bot.token)).send({ black: bot.id, white: target.id });
    expect([(await challenge(one)).status, (await challenge(two)).status]).toEqual([202, 202]);
    const third = await challenge(one);
    expect(third.status).toBe(429);
    expect(third.body.detail).toMatch(/account's bots/);
  });
});

describe('GET /v1/accounts/me/bots', () => {
  it('lists every bot of the account, with its pause and its last fault in full', async () => {
    const owner = await openAccount('fault-owner');
    const down = `http://127.0.0.1:${await closedPort()}/`;
    const faulty = await registerOwned(owner.token, { name: 'faulty-owned', url: down });
    const fine = await registerOwned(owner.token, { name: 'fine-owned', url: legal.url });
    const opponent = await registerBot(h, { name: 'owned-opponent', url: legal.url });
    const id = await createMatch(h, opponent.id, faulty.id);
    await arena.runner.play(id, new AbortController().signal);
    const listed = await request(h.app).get('/v1/accounts/me/bots').set(bearer(owner.token));
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((bot: { id: string }) => bot.id)).toEqual([fine.id, faulty.id]);
    const [okBot, faultyBot] = listed.body.items;
    expect(okBot.lastFault).toBeNull();
    expect(faultyBot.lastFault).toMatchObject({
      matchId: id,
      reason: 'no-show',
      fault: { reason: 'bot-error' },
    });
    // In full for the owner: the message names the URL, which the public never sees.
    expect(faultyBot.lastFault.fault.message).toContain('127.0.0.1');
    expect(faultyBot.url).toBe(down);
    expect((await request(h.app).get('/v1/accounts/me/bots').set(admin)).status).toBe(403);
  });
});

describe('an account token', () => {
  it('is rotated: the old one stops working at once', async () => {
    const account = await openAccount('rotating');
    const rotated = await request(h.app).post('/v1/accounts/me/token').set(bearer(account.token));
    expect(rotated.body.token).toMatch(/^rva_/);
    expect((await request(h.app).get('/v1/accounts/me').set(bearer(account.token))).status).toBe(401);
    expect((await request(h.app).get('/v1/accounts/me').set(bearer(rotated.body.token))).status).toBe(200);
  });
});

describe('closing an account', () => {
  it('retires its bots, then closes it: every token of it stops working', async () => {
    const account = await openAccount('closing');
    const bot = await registerOwned(account.token, { name: 'closing-bot' });
    expect((await request(h.app).delete('/v1/accounts/me').set(bearer(account.token))).status).toBe(204);
    expect((await request(h.app).get(`/v1/bots/${bot.id}`)).body.status).toBe('retired');
    expect((await request(h.app).get('/v1/bots/me').set(bearer(bot.token))).status).toBe(401);
    expect((await request(h.app).get('/v1/accounts/me').set(bearer(account.token))).status).toBe(401);
    // Its name stays taken (its bots still name it).
    expect((await request(h.app).post('/v1/accounts').send({ name: 'closing' })).status).toBe(409);
  });
});
