import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { launchBrowser, pageProblems, screenshot } from './browser.ts';

let h: Harness;
let server: Server;
/** `localhost`, not an IP address: WebAuthn binds passkeys to a host name. */
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
let authenticatorId: string;

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness(), launchBrowser()]);
  // Both families: the browser may reach `localhost` on ::1 or 127.0.0.1.
  server = h.app.listen(0, '::');
  await new Promise<void>((done) => server.once('listening', done));
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  problems = pageProblems(page);
  // The DevTools protocol's WebAuthn domain: a platform authenticator that keeps resident keys and
  // verifies its user at once, so the real ceremonies run without a person.
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }));
  page.on('dialog', (dialog) => void dialog.accept());
});
afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  await h?.close();
});

const status = () => page.locator('#status').textContent();

describe('the My bots page', () => {
  let accountToken: string;

  it('opens an account, signs the browser in, and shows the account token once', async () => {
    await page.goto(`${origin}/my-bots`);
    await page.locator('#signed-out').waitFor();
    await page.getByLabel('Account name').fill('page-owner');
    await page.getByRole('button', { name: 'Open an account' }).click();
    // The token is shown once the signed-in half has loaded, a moment after it appears.
    await page.locator('#secret').waitFor();
    accountToken = await page.locator('#secret-value').inputValue();
    expect(accountToken).toMatch(/^rva_/);
    await expect(page.locator('#account-name').textContent()).resolves.toBe('page-owner');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.locator('#secret-value').inputValue()).resolves.toBe('');
  });

  it('adds a passkey with the real WebAuthn ceremony', async () => {
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('#passkeys li.passkey').waitFor();
    const account = (await request(h.app).get('/v1/accounts/me').set(bearer(accountToken))).body;
    expect(account.passkeys).toHaveLength(1);
    // The authenticator keeps it as a resident key of this site, under the account's handle.
    const cdp = await context.newCDPSession(page);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    expect(Buffer.from(credentials[0]!.userHandle!, 'base64').toString()).toBe(account.id);
  });

  it('signs out, then signs in again with the passkey alone', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#signed-out').waitFor();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.locator('#signed-in').waitFor();
    await expect(page.locator('#account-name').textContent()).resolves.toBe('page-owner');
    const account = (await request(h.app).get('/v1/accounts/me').set(bearer(accountToken))).body;
    expect(account.passkeys[0].lastUsedAt).not.toBeNull();
  });

  let botId: string;
  let botToken: string;

  it('registers a bot the account owns, and shows its token once', async () => {
    await page.locator('#new-bot-name').fill('page-bot');
    await page.locator('#new-bot-url').fill('http://127.0.0.1:9/turn');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await page.locator('article.owned-bot').waitFor();
    botToken = await page.locator('#secret-value').inputValue();
    expect(botToken).toMatch(/^rvb_/);
    await expect(page.locator('#secret-extra-value').inputValue()).resolves.toMatch(/^whsec_/);
    const me = (await request(h.app).get('/v1/bots/me').set(bearer(botToken))).body;
    botId = me.id;
    expect(me.owner.name).toBe('page-owner');
    await screenshot(page, 'my-bots');
  });

  it('changes its settings', async () => {
    const card = page.locator(`article[data-bot-id="${botId}"]`);
    await card.locator('summary', { hasText: 'Settings' }).click();
    await card.getByLabel('Rated play').uncheck();
    await card.getByLabel('Challenges').selectOption('ask');
    await card.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(status).toContain('settings saved');
    const bot = (await request(h.app).get(`/v1/bots/${botId}`)).body;
    expect(bot).toMatchObject({ ratedPlay: false, challenges: 'ask' });
    await expect(page.locator(`article[data-bot-id="${botId}"]`).textContent()).resolves.toContain(
      'asks before each challenge',
    );
  });

  it('gives it a new token, shown once; the old one stops working', async () => {
    await page.locator(`article[data-bot-id="${botId}"]`).getByRole('button', { name: 'New token' }).click();
    await expect.poll(() => page.locator('#secret-value').inputValue()).not.toBe(botToken);
    const fresh = await page.locator('#secret-value').inputValue();
    expect(fresh).toMatch(/^rvb_/);
    expect((await request(h.app).get('/v1/bots/me').set(bearer(botToken))).status).toBe(401);
    expect((await request(h.app).get('/v1/bots/me').set(bearer(fresh))).body.id).toBe(botId);
  });

  it('retires it', async () => {
    await page.locator(`article[data-bot-id="${botId}"]`).getByRole('button', { name: 'Retire' }).click();
    await expect.poll(status).toContain('is retired');
    expect((await request(h.app).get(`/v1/bots/${botId}`)).body.status).toBe('retired');
    expect(problems).toEqual([]);
  });
});
