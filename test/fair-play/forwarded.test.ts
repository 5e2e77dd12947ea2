import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { storeKeys } from '../../src/redis/keys.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Registers a bot naming `forwarded` as its address; answers the status and where it was kept from. */
async function registerAs(arena: Harness, forwarded: string, name: string) {
  const res = await request(arena.app).post('/v1/bots').set('x-forwarded-for', forwarded).send({ name });
  const origin =
    res.status === 201
      ? await arena.redis.hget(storeKeys(arena.prefix).bot(res.body.id), 'registeredFrom')
      : null;
  return { status: res.status, origin };
}

describe('a client that names another address in X-Forwarded-For', () => {
  describe('with the default TRUST_PROXY', () => {
    it('is counted at the address it connects from, whatever it names', async () => {
      h = await createHarness({ RATE_LIMIT_REGISTRATIONS_PER_HOUR: '2' });
      expect(h.config.trustProxy).toBe(false);
      const first = await registerAs(h, '198.51.100.1', 'forged-1');
      const second = await registerAs(h, '198.51.100.2', 'forged-2');
      expect([first.status, second.status]).toEqual([201, 201]);
      // One operator as far as matchmaking and tournaments can tell, and one registration budget.
      expect(second.origin).toBe(first.origin);
      expect((await registerAs(h, '198.51.100.3', 'forged-3')).status).toBe(429);
    });
  });

  describe('behind a proxy TRUST_PROXY names', () => {
    it('is counted at the address the proxy reports', async () => {
      h = await createHarness({ RATE_LIMIT_REGISTRATIONS_PER_HOUR: '2', TRUST_PROXY: 'loopback' });
      const first = await registerAs(h, '198.51.100.1', 'proxied-1');
      const second = await registerAs(h, '198.51.100.2', 'proxied-2');
      expect(second.origin).not.toBe(first.origin);
      expect((await registerAs(h, '198.51.100.3', 'proxied-3')).status).toBe(201);
    });
  });
});

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['true', true],
    ['1', 1],
    ['loopback, 10.0.0.0/8', 'loopback,10.0.0.0/8'],
    ['::1,fd00::/8', '::1,fd00::/8'],
  ])('reads %s as %s', (value, trust) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy).toEqual(trust);
  });

  it.each(['loopbak', '10.0.0.0/33', '1.2.3'])('refuses %s, naming it', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
      new RegExp(`TRUST_PROXY.*${value.replace('.', '\\.')}`),
    );
  });
});
