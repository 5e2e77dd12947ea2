import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInPrefix } from '../../src/config.ts';
import { bearer } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { scanKeys } from '../support/redis-keys.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ TRUST_PROXY: 'loopback' });
});
afterAll(() => h.close());

async function signedIn(name: string, headers: Record<string, string> = {}) {
  const account = (await request(h.app).post('/v1/accounts').send({ name })).body as {
    id: string;
    token: string;
  };
  const res = await request(h.app).post('/v1/session').set(bearer(account.token)).set(headers);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const setCookie = res.headers['set-cookie'] as unknown as string[];
  const cookie = setCookie[0]!.split(';')[0]!;
  return { account, cookie, setCookie: setCookie[0]!, csrf: res.body.csrfToken as string };
}

describe('a session started with an account token', () => {
  it('sets an HttpOnly, SameSite=Lax cookie, not Secure over plain HTTP, and never the token itself', async () => {
    const { account, setCookie } = await signedIn('cookie-owner');
    expect(setCookie).toMatch(/^arena_session=[\w-]{43};/);
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Lax/i);
    expect(setCookie).not.toMatch(/; Secure/i);
    expect(setCookie).not.toContain(account.token);
    // Kept by a hash of the cookie, under the sign-ins' prefix (a hash tag of its own on a cluster).
    const stored = await scanKeys(h.redis, `${signInPrefix(h.prefix)}:session:*`);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.some((key) => key.endsWith(setCookie.split(';')[0]!.split('=')[1]!))).toBe(false);
  });

  it('is Secure when the request came over TLS (as a trusted proxy says)', async () => {
    const { setCookie } = await signedIn('tls-owner', { 'x-forwarded-proto': 'https' });
    expect(setCookie).toMatch(/; Secure/i);
  });

  it('signs the browser in: reads pass with the cookie alone', async () => {
    const { account, cookie, csrf } = await signedIn('reader');
    const session = await request(h.app).get('/v1/session').set('cookie', cookie);
    expect(session.body).toMatchObject({
      account: { id: account.id, name: 'reader' },
      csrfToken: csrf,
      via: 'token',
    });
    expect((await request(h.app).get('/v1/accounts/me').set('cookie', cookie)).body.id).toBe(account.id);
  });

  it('needs the CSRF token on every request that changes something', async () => {
    const { cookie, csrf } = await signedIn('writer');
    const register = () => request(h.app).post('/v1/bots').set('cookie', cookie).send({ name: 'csrf-bot' });
    const refused = await register();
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('auth/csrf');
    expect((await register().set('x-csrf-token', 'not-it')).status).toBe(403);
    const made = await register().set('x-csrf-token', csrf);
    expect(made.status).toBe(201);
    expect(made.body.owner.name).toBe('writer');
  });

  it('ends when signed out; a bearer token is used before a cookie', async () => {
    const { account, cookie, csrf } = await signedIn('leaver');
    expect((await request(h.app).delete('/v1/session').set('cookie', cookie)).status).toBe(403);
    const out = await request(h.app).delete('/v1/session').set('cookie', cookie).set('x-csrf-token', csrf);
    expect(out.status).toBe(204);
    expect((await request(h.app).get('/v1/session').set('cookie', cookie)).status).toBe(204);
    expect((await request(h.app).get('/v1/accounts/me').set('cookie', cookie)).status).toBe(401);
    expect(
      (await request(h.app).get('/v1/accounts/me').set(bearer(account.token)).set('cookie', cookie)).status,
    ).toBe(200);
  });

  it('is forgotten when its account closes', async () => {
    const { cookie, csrf } = await signedIn('closer');
    expect(
      (await request(h.app).delete('/v1/accounts/me').set('cookie', cookie).set('x-csrf-token', csrf)).status,
    ).toBe(204);
    expect((await request(h.app).get('/v1/session').set('cookie', cookie)).status).toBe(204);
  });

  it('cannot be started from another session or without a token', async () => {
    const { cookie, csrf } = await signedIn('no-chain');
    const res = await request(h.app).post('/v1/session').set('cookie', cookie).set('x-csrf-token', csrf);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth/missing-token');
    expect((await request(h.app).get('/v1/session/providers')).body).toEqual({ passkeys: true, oidc: null });
  });
});
