import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';
import { controlsOffScreen, launchBrowser, pageProblems, screenshot } from './browser.ts';

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

/** The request a one-line curl command of the page makes: its method, URL and headers. */
function curlRequest(command: string) {
  const headers = Object.fromEntries(
    [...command.matchAll(/-H "([^:]+): ([^"]+)"/g)].map(([, name, value]) => [name!, value!]),
  );
  const url = command.match(/"?(https?:\/\/[^\s"]+)"?\s*$/)?.[1];
  return { method: command.match(/-X (\w+)/)?.[1] ?? 'GET', url: url!, headers };
}

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
    await expect(created.getByText('it is shown only this once').isVisible()).resolves.toBe(true);

    const href = await created.getByRole('link', { name: 'form-bot' }).getAttribute('href');
    const id = href!.replace('/bots/', '');
    await expect(page.locator('#bot-id').textContent()).resolves.toBe(id);
    expect(id).toMatch(/^bot_/);
    const bot = (await request(h.app).get(`/v1/bots/${id}`)).body;
    expect(bot).toMatchObject({ name: 'form-bot', description: 'Made with the form', kind: 'pull' });
    const patched = await request(h.app)
      .patch(`/v1/bots/${id}`)
      .set(bearer(token))
      .send({ description: 'ok' });
    expect(patched.status).toBe(200);
  });

  it("shows a pull bot's next steps as curl commands with its token, and they work", async () => {
    const steps = page.locator('#next-steps');
    await expect(steps.getByRole('heading', { name: 'Next steps' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('#next-push').isVisible()).resolves.toBe(false);
    const events = (await page.locator('#cmd-events').textContent())!;
    expect(events).toBe(`curl -N -H "Authorization: Bearer ${token}" ${site.origin}/v1/bots/me/events`);
    const poll = (await page.locator('#cmd-poll').textContent())!.split('\n');
    expect(poll[0]).toBe(
      `curl -H "Authorization: Bearer ${token}" "${site.origin}/v1/bots/me/matches?status=running"`,
    );
    expect(poll.join('\n')).toContain(`${site.origin}/v1/matches/MATCH_ID/state?waitMs=`);
    expect(poll.join('\n')).toContain(`${site.origin}/v1/matches/MATCH_ID/actions`);

    // Made as the page wrote them, the requests are let in: the event stream opens, the list answers.
    const stream = curlRequest(events);
    const abort = new AbortController();
    const opened = await fetch(stream.url, { headers: stream.headers, signal: abort.signal });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toMatch(/^text\/event-stream/);
    abort.abort();
    const list = curlRequest(poll[0]!);
    const listed = await fetch(list.url, { headers: list.headers });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ items: [] });
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
    // A push bot's next step: the check call, with its token.
    await expect(page.locator('#next-pull').isVisible()).resolves.toBe(false);
    const check = (await page.locator('#cmd-check').textContent())!;
    expect(check).toBe(
      `curl -X POST -H "Authorization: Bearer ${pushToken}" ${site.origin}/v1/bots/me/check`,
    );
    expect(curlRequest(check)).toEqual({
      method: 'POST',
      url: `${site.origin}/v1/bots/me/check`,
      headers: { Authorization: `Bearer ${pushToken}` },
    });
    await page.getByRole('button', { name: 'Copy command' }).click();
    await page.locator('#copy-status', { hasText: 'Command copied to the clipboard.' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(check);

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

  it('says in plain words, once, that an empty name needs filling in', async () => {
    await page.goto(`${site.origin}/register`);
    await register(page, { name: '' });
    const summary = page.locator('#form-errors');
    await summary.waitFor();
    await expect(page.locator('#name-error').textContent()).resolves.toBe('Enter a name for your bot.');
    await expect(summary.getByRole('listitem').allTextContents()).resolves.toEqual([
      'Name: Enter a name for your bot.',
    ]);
    const shown = `${await summary.textContent()} ${await page.locator('#register-form').textContent()}`;
    expect(shown).not.toMatch(/expected|string|>=|A-Z|Too small/);
    await expect(page.getByLabel('Name').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel(/^URL/).getAttribute('aria-invalid')).resolves.toBe(null);
  });

  it('gives each field one plain message', async () => {
    await register(page, { name: 'no spaces allowed', description: 'x'.repeat(501), url: 'not a url' });
    await page.locator('#form-errors').waitFor();
    await expect(page.locator('#name-error').textContent()).resolves.toBe(
      'Use only letters, digits, _ and - in the name (no spaces or other signs).',
    );
    await expect(page.locator('#url-error').textContent()).resolves.toMatch(/^Enter a full address/);
    await expect(page.locator('#form-errors li').count()).resolves.toBeLessThanOrEqual(3);
  });

  it('says when the name is taken', async () => {
    await registerBot(h, { name: 'taken-name' });
    await register(page, { name: 'taken-name' });
    await expect.poll(() => page.locator('#name-error').textContent()).toContain('taken-name');
    await expect(page.getByLabel('Name').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel(/^URL/).getAttribute('aria-invalid')).resolves.toBe(null);
  });
});

describe('on a 375 px wide phone screen', () => {
  it('fits the form, its errors and the registered bot with its commands', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await phone.goto(`${site.origin}/register`);
    await register(phone, { name: 'x', url: 'ftp://nowhere' });
    await phone.locator('#form-errors').waitFor();
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    await register(phone, { name: 'phone-bot' });
    await phone.locator('#created').waitFor();
    await phone.locator('#cmd-poll').waitFor();
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    const command = (await phone.locator('#cmd-events').boundingBox())!;
    expect(command.x + command.width).toBeLessThanOrEqual(375);
    await screenshot(phone, 'register-375');
    await phone.close();
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
