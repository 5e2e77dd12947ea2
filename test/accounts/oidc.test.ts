import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { ALICE, startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import { serve } from '../support/serve.ts';

const CLIENT = { clientId: 'reversi-arena', clientSecret: 'a-client-secret-0123456789abcdef' };

let provider: TestProvider;
let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  provider = await startTestProvider();
  h = await createHarness({
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: CLIENT.clientId,
    OIDC_CLIENT_SECRET: CLIENT.clientSecret,
    OIDC_NAME: 'Test ID',
  });
  site = await serve(h);
  provider.register({ ...CLIENT, redirectUri: `${site.origin}/auth/oidc/callback` });
});
afterAll(async () => {
  await site.close();
  await h.close();
  await provider.close();
});

/** A browser's way through redirects: one cookie jar per origin, every hop followed by hand. */
function browser() {
  const jars = new Map<string, Map<string, string>>();
  return {
    async go(start: string): Promise<{ url: URL; status: number; hops: string[] }> {
      let url = new URL(start);
      const hops: string[] = [];
      for (let hop = 0; hop < 20; hop++) {
        hops.push(url.href);
        const jar = jars.get(url.origin) ?? new Map<string, string>();
        jars.set(url.origin, jar);
        const res = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
        });
        for (const line of res.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const at = pair.indexOf('=');
          const name = pair.slice(0, at);
          if (/expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) jar.delete(name);
          else jar.set(name, pair.slice(at + 1));
        }
        const location = res.headers.get('location');
        await res.arrayBuffer();
        if (res.status < 300 || res.status >= 400 || location === null)
          return { url, status: res.status, hops };
        url = new URL(location, url);
      }
      throw new Error('too many redirects');
    },
    cookie(origin: string): string {
      return [...(jars.get(origin) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
    },
  };
}

const session = async (cookie: string) =>
  (await fetch(`${site.origin}/v1/session`, { headers: { cookie } })).json() as Promise<{
    account: { id: string; name: string };
    via: string;
  }>;

describe('signing in through an OpenID provider', () => {
  it('is offered to the page, and signs a new subject in to an account of its own', async () => {
    const providers = (await (await fetch(`${site.origin}/v1/session/providers`)).json()) as {
      oidc: unknown;
    };
    expect(providers.oidc).toEqual({ name: 'Test ID', startUrl: '/auth/oidc/start' });
    const visitor = browser();
    const landed = await visitor.go(`${site.origin}/auth/oidc/start`);
    expect(landed.url.href).toBe(`${site.origin}/my-bots`);
    expect(landed.hops.some((hop) => hop.startsWith(`${provider.issuer}/auth?`))).toBe(true);
    const signedIn = await session(visitor.cookie(site.origin));
    expect(signedIn).toMatchObject({ account: { name: ALICE.preferred_username }, via: 'oidc' });

    // The same subject, another day: the same account.
    const again = browser();
    await again.go(`${site.origin}/auth/oidc/start`);
    expect((await session(again.cookie(site.origin))).account.id).toBe(signedIn.account.id);
  });

  it('refuses a way back it did not start, sending the browser to the page with the reason', async () => {
    const landed = await browser().go(`${site.origin}/auth/oidc/callback?code=forged&state=forged`);
    expect(landed.url.pathname).toBe('/my-bots');
    expect(landed.url.searchParams.get('signin')).toBe('oidc/unknown-state');
  });
});
