import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';
import { launchBrowser, pageProblems, screenshot } from './browser.ts';

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness(), launchBrowser()]);
  site = await serve(h);
  context = await browser.newContext({
    viewport: { width: 1100, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  page = await context.newPage();
  problems = pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await h?.close();
});

async function register(p: Page, fields: { name: string; description?: string; url?: string }) {
  await p.getByLabel('Name').fill(fields.name);
  await p.getByLabel(/^Description/).fill(fields.description ?? '');
  await p.getByLabel(/^URL/).fill(fields.url ?? '');
  await p.getByRole('button', { name: 'Register', exact: true }).click();
}

describe('registering a bot at /register', () => {
  let token: string;

  it('creates the bot and shows its token, which works', async () => {
    await page.goto(`${site.origin}/register`);
    await screenshot(page, 'register');
    await register(page, { name: 'form-bot', description: 'Made with the form' });
    const created = page.locator('#created');
    await created.waitFor();
    token = await page.locator('#token').inputValue();
    expect(token).toMatch(/^rvb_/);
    await expect(page.locator('#secret-field').isVisible()).resolves.toBe(false); // a pull bot has no URL to sign for
    await expect(page.locator('#register-form').isVisible()).resolves.toBe(false);
    await expect(created.textContent()).resolves.toContain('pull bot');
    expect(await page.locator(':focus').getAttribute('id')).toBe('created');

    const href = await created.getByRole('link', { name: 'form-bot' }).getAttribute('href');
    const id = href!.replace('/bots/', '');
    const bot = (await request(h.app).get(`/v1/bots/${id}`)).body;
    expect(bot).toMatchObject({ name: 'form-bot', description: 'Made with the form', kind: 'pull' });
    const patched = await request(h.app)
      .patch(`/v1/bots/${id}`)
      .set(bearer(token))
      .send({ description: 'ok' });
    expect(patched.status).toBe(200);
  });

  it('copies the token with the copy button', async () => {
    await page.getByRole('button', { name: 'Copy token' }).click();
    await page.locator('#copy-status', { hasText: 'Token copied to the clipboard.' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    await screenshot(page, 'register-created');
  });

  it('does not show the token again after a reload', async () => {
    await page.reload();
    await page.getByLabel('Name').waitFor();
    expect(await page.content()).not.toContain(token);
    await expect(page.locator('#created').isVisible()).resolves.toBe(false);
    expect(await page.locator('#token').inputValue()).toBe('');
  });

  it('does not show it again when the user navigates away and back', async () => {
    await register(page, { name: 'push-bot', url: 'https://bots.example.org/push' });
    await page.locator('#created').waitFor();
    const pushToken = await page.locator('#token').inputValue();
    const secret = await page.locator('#webhook-secret').inputValue();
    expect(pushToken).toMatch(/^rvb_/);
    expect(secret).toMatch(/^whsec_/);
    await expect(page.locator('#created').textContent()).resolves.toContain('push bot');

    await page.getByRole('navigation').getByRole('link', { name: 'Leaderboard' }).click();
    await page.waitForURL(`${site.origin}/`);
    await page.goBack();
    await page.getByLabel('Name').waitFor();
    const html = await page.content();
    expect(html).not.toContain(pushToken);
    expect(html).not.toContain(secret);
    expect(await page.locator('#token').inputValue()).toBe('');
    expect(problems).toEqual([]);
  });
});

describe('a registration the API refuses', () => {
  it('lists each problem beside its field', async () => {
    await page.goto(`${site.origin}/register`);
    await register(page, { name: 'x', url: 'ftp://nowhere' });
    const summary = page.locator('#form-errors');
    await summary.waitFor();
    expect(await page.locator(':focus').getAttribute('id')).toBe('form-errors');
    await expect(summary.textContent()).resolves.toContain('The bot was not registered.');
    await expect(page.getByLabel('Name').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel(/^URL/).getAttribute('aria-invalid')).resolves.toBe('true');
    expect((await page.locator('#name-error').textContent())!.length).toBeGreaterThan(0);
    expect(await summary.getByRole('link').count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'register-errors');
  });

  it('says when the name is taken', async () => {
    await registerBot(h, { name: 'taken-name' });
    await register(page, { name: 'taken-name' });
    await expect.poll(() => page.locator('#name-error').textContent()).toContain('taken-name');
    await expect(page.getByLabel('Name').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel(/^URL/).getAttribute('aria-invalid')).resolves.toBe(null);
  });
});

describe('copying without clipboard permission', () => {
  it('falls back to selecting the token', async () => {
    const plain = await browser.newPage();
    await plain.goto(`${site.origin}/register`);
    await register(plain, { name: 'no-clipboard' });
    await plain.locator('#created').waitFor();
    // Take the Clipboard API away, as on a plain-http origin.
    await plain.evaluate("Object.defineProperty(navigator, 'clipboard', { value: undefined })");
    await plain.getByRole('button', { name: 'Copy token' }).click();
    await plain.locator('#copy-status', { hasText: /^Token (copied|selected)/ }).waitFor();
    const selected = await plain.locator('#token').evaluate((node) => {
      const input = node as unknown as { value: string; selectionStart: number; selectionEnd: number };
      return input.value.slice(input.selectionStart, input.selectionEnd);
    });
    expect(selected).toBe(await plain.locator('#token').inputValue());
    await plain.close();
  });
});
