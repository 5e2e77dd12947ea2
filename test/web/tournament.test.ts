import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../src/wiring/processes.ts';
import { admin, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { serve } from '../support/serve.ts';
import { controlsOffScreen, launchBrowser, pageProblems, screenshot } from './browser.ts';

let h: Harness;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
let page: Page;
let problems: string[];
const servers: LoopbackBot[] = [];
const bots: RegisteredBot[] = [];
let tournamentId: string;

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness({ SHUTDOWN_GRACE_MS: '0' }), launchBrowser()]);
  workers = await startWorkers(h.config, pino({ level: 'silent' }));
  site = await serve(h);
  for (const [name, delay] of [
    ['quick-quokka', 0],
    ['steady-stoat', 5],
    ['tardy-tapir', 10],
  ] as const) {
    const server = await startLoopbackBot(playsFirstLegal(delay));
    servers.push(server);
    bots.push(await registerBot(h, { name, url: server.url }));
  }
  const created = await request(h.app)
    .post('/v1/tournaments')
    .set(admin)
    .send({
      name: 'Web <b>cup</b>',
      format: 'round-robin',
      gamesPerPairing: 1,
      bots: bots.map((bot) => bot.id),
      openings: 'balanced',
    });
  expect(created.status).toBe(201);
  tournamentId = created.body.id;
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  problems = pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await workers?.close();
  await Promise.all(servers.map((server) => server.close()));
  await h?.close();
});

describe('the tournament page at /tournaments/<id>', { timeout: 120_000 }, () => {
  it('follows the tournament by itself from open to finished, and shows the standings with the entrants’ names', async () => {
    await page.goto(`${site.origin}/tournaments/${tournamentId}`);
    await page.locator('#t-status', { hasText: 'Open for entries' }).waitFor();
    // The name is text, never markup.
    expect(await page.locator('#title').textContent()).toBe('Web <b>cup</b>');
    expect(await page.locator('#standings-body tr').count()).toBe(3);

    expect((await request(h.app).post(`/v1/tournaments/${tournamentId}/start`).set(admin)).status).toBe(200);
    await page.locator('#t-status', { hasText: 'Finished' }).waitFor({ timeout: 90_000 });

    const t = (await request(h.app).get(`/v1/tournaments/${tournamentId}`)).body;
    expect(t.status).toBe('finished');
    const names = await page.locator('#standings-body tr th a').allTextContents();
    expect(names).toEqual(t.standings.map((row: { bot: { name: string } }) => row.bot.name));
    expect([...names].sort()).toEqual(bots.map((bot) => bot.name).sort());
    const firstRow = page.locator('#standings-body tr').first();
    expect(await firstRow.locator('td').nth(1).textContent()).toBe(
      String(t.standings[0].points).replace('.5', '½').replace(/^0½$/, '½'),
    );
    await expect(page.locator('#tiebreak-head').textContent()).resolves.toBe('Sonneborn–Berger');

    // A link to every match, round by round.
    const links = await page
      .locator('#rounds a[href^="/matches/"]')
      .evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
    const matchIds = t.rounds.flatMap((round: { games: { matchId: string }[] }) =>
      round.games.map((game) => `/matches/${game.matchId}`),
    );
    expect(links.sort()).toEqual(matchIds.sort());
    expect(await page.locator('#crosstable tbody tr').count()).toBe(3);
    expect(problems).toEqual([]);
    await screenshot(page, 'tournament');
  });

  it('fits a phone screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 740 } });
    try {
      await phone.goto(`${site.origin}/tournaments/${tournamentId}`);
      await phone.locator('#standings-body tr').first().waitFor();
      expect(await controlsOffScreen(phone)).toEqual([]);
      await screenshot(phone, 'tournament-375');
    } finally {
      await phone.close();
    }
  });
});

describe('the tournaments list at /tournaments', () => {
  it('links each tournament to its page', async () => {
    await page.goto(`${site.origin}/tournaments`);
    const link = page.getByRole('link', { name: 'Web <b>cup</b>', exact: true });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/tournaments/${tournamentId}`);
    expect(problems).toEqual([]);
    await screenshot(page, 'tournaments');
  });
});

describe('a tournament that starts by itself', { timeout: 60_000 }, () => {
  let eventId: string;
  beforeAll(async () => {
    const created = await request(h.app)
      .post('/v1/tournaments')
      .set(admin)
      .send({
        name: 'Evening event',
        format: 'round-robin',
        openings: 'standard',
        startsAt: new Date(Date.now() + 10 * 60_000).toISOString(),
        minEntrants: 3,
      });
    expect(created.status).toBe(201);
    eventId = created.body.id;
  });

  it('counts down to its start and takes entries with a pasted token', async () => {
    await page.goto(`${site.origin}/tournaments/${eventId}`);
    await page.locator('#t-status', { hasText: 'Open for entries until' }).waitFor();
    expect(await page.locator('#t-status').textContent()).toMatch(/starts then with 3 active entrants/);
    const countdown = page.locator('#profile .countdown');
    expect(await countdown.textContent()).toMatch(/^starts in (9|10) min/);
    const before = await countdown.textContent();
    // It ticks by itself, between refreshes of the page's data.
    await expect.poll(() => countdown.textContent(), { timeout: 5000 }).not.toBe(before);

    await page.fill('#entry-token', 'not-a-token');
    await page.click('#entry-submit');
    await page.locator('#entry-error', { hasText: 'That token is not valid' }).waitFor();
    // The browser logs the refused token's 401: expected here, and the only problem allowed.
    expect(problems.splice(0)).toEqual([
      'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
    ]);
    await page.fill('#entry-token', bots[0]!.token);
    await page.click('#entry-submit');
    await page.locator('#entry-done', { hasText: `${bots[0]!.name} is entered.` }).waitFor();
    expect(await page.locator('#entry-error').isHidden()).toBe(true);
    await page.locator('#standings-body tr', { hasText: bots[0]!.name }).waitFor();
    await page.click('#entry-leave');
    await page.locator('#entry-done', { hasText: `${bots[0]!.name} has left the tournament.` }).waitFor();
    expect((await request(h.app).get(`/v1/tournaments/${eventId}`)).body.entrantCount).toBe(0);
    expect(problems).toEqual([]);
  });

  it('shows its countdown in the list', async () => {
    await page.goto(`${site.origin}/tournaments`);
    const row = page.locator(`tr[data-tournament-id="${eventId}"]`);
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toMatch(/^open, starts in (9|10) min/);
  });

  it("is offered on a bot's page, entered with that bot's own token only", async () => {
    const [other, own] = [bots[0]!, bots[1]!];
    await page.goto(`${site.origin}/bots/${own.id}`);
    const item = page.locator(`#events-list li[data-tournament-id="${eventId}"]`);
    await item.waitFor();
    expect(await item.textContent()).toMatch(/Evening event · starts in/);
    await page.fill('#events-token', other.token);
    await item.getByRole('button', { name: 'Enter Evening event' }).click();
    await page
      .locator('#events-error', { hasText: `That is the token of ${other.name}, not of this bot.` })
      .waitFor();
    await page.fill('#events-token', own.token);
    await item.getByRole('button', { name: 'Enter Evening event' }).click();
    await page.locator('#events-done', { hasText: `${own.name} is entered.` }).waitFor();
    const t = (await request(h.app).get(`/v1/tournaments/${eventId}`)).body;
    expect(t.entrants.map((e: { id: string }) => e.id)).toEqual([own.id]);
    expect(problems).toEqual([]);
  });
});
