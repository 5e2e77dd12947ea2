import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureHouseBots } from '../../src/arena/house-bots.ts';
import { type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';
import {
  arenaFor,
  controlsOffScreen,
  firstLegal,
  lastLegal,
  launchBrowser,
  movesOnceThenGarbage,
  pageProblems,
  screenshot,
} from './browser.ts';

let h: Harness;
let arena: ReturnType<typeof arenaFor>;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
let page: Page;
let problems: string[];
const bots = {} as Record<'alpha' | 'bravo' | 'charlie' | 'delta' | 'foxtrot' | 'golf', RegisteredBot>;
/** Rated games a bot needs to be ranked (the page's MIN_RANKED_GAMES). */
const MIN_RANKED_GAMES = 5;
const DESCRIPTION = 'Plays the first legal move. <b>bold?</b> <script>alert(1)</script> & "quotes"';

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness(), launchBrowser()]);
  // Two faults in a row pause a push bot, as the workers do with MATCHMAKING_PAUSE_AFTER_FAULTS.
  arena = arenaFor(h, { pauseAfterFaults: 2 });
  site = await serve(h);
  bots.alpha = await arena.bot('alpha', firstLegal, DESCRIPTION);
  bots.bravo = await arena.bot('bravo', lastLegal);
  bots.charlie = await arena.bot('charlie', movesOnceThenGarbage());
  bots.delta = await registerBot(h, { name: 'delta' }); // a pull bot that never plays
  // Rated games, as the matchmaker plays them. charlie answers nonsense after its first move and
  // loses both its games; alpha and bravo play one game to the end.
  await arena.playedRated(bots.alpha.id, bots.charlie.id);
  await arena.playedRated(bots.bravo.id, bots.alpha.id);
  await arena.playedRated(bots.charlie.id, bots.bravo.id);
  // foxtrot and golf play enough rated games to be ranked; the others stay unranked.
  bots.foxtrot = await arena.bot('foxtrot', firstLegal);
  bots.golf = await arena.bot('golf', lastLegal);
  for (let game = 0; game < MIN_RANKED_GAMES; game++) {
    const [black, white] = game % 2 === 0 ? [bots.foxtrot, bots.golf] : [bots.golf, bots.foxtrot];
    await arena.playedRated(black.id, white.id);
  }
  await h.stores.ratings.saveStrengths(
    new Map([[bots.alpha.id, { rating: 1512.4, lower: 1401.2, upper: 1630.9 }]]),
    Date.now(),
  );
  page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  problems = pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await arena?.close();
  await h?.close();
});

const RANKED = '#lb-body tr';
const UNRANKED = '#lb-unranked-body tr';
const rowNames = (rows: string) => page.locator(`${rows} th a`).allTextContents();
const rowOf = (name: string) =>
  page.locator('table.standings tbody tr', { has: page.getByRole('link', { name, exact: true }) });

describe('the leaderboard at /', () => {
  it('ranks the bots with enough rated games in rating order, each linking to its page', async () => {
    await page.goto(`${site.origin}/`);
    await page.locator(UNRANKED).nth(3).waitFor();
    const documents = await Promise.all(
      Object.values(bots).map(async (bot) => (await request(h.app).get(`/v1/bots/${bot.id}`)).body),
    );
    const byRating = [...documents].sort((a, b) => b.rating - a.rating || a.id.localeCompare(b.id));
    expect(new Set(byRating.map((bot) => bot.rating)).size).toBeGreaterThan(2); // the games moved them apart
    const ranked = byRating.filter((bot) => bot.games >= MIN_RANKED_GAMES);
    const unranked = byRating.filter((bot) => bot.games < MIN_RANKED_GAMES);
    expect(ranked.map((bot) => bot.name).sort()).toEqual(['foxtrot', 'golf']);
    expect(await rowNames(RANKED)).toEqual(ranked.map((bot) => bot.name));
    expect(await rowNames(UNRANKED)).toEqual(unranked.map((bot) => bot.name));
    // Ranks count the ranked bots only.
    expect(await page.locator(`${RANKED} td:nth-child(1)`).allTextContents()).toEqual(['1', '2']);
    expect(await page.locator('#lb-body tr th a').first().getAttribute('href')).toBe(`/bots/${ranked[0].id}`);
    expect(problems).toEqual([]);
  });

  it('shows each Elo rating as a whole number of points', async () => {
    const documents = await Promise.all(
      Object.values(bots).map(async (bot) => (await request(h.app).get(`/v1/bots/${bot.id}`)).body),
    );
    expect(documents.some((bot) => !Number.isInteger(bot.rating))).toBe(true); // the API's are not
    for (const bot of documents) {
      // The cell's own text, before its "provisional" badge.
      const shown = await rowOf(bot.name)
        .locator('td.elo')
        .evaluate((cell) => cell.firstChild?.textContent);
      expect(shown, bot.name).toBe(String(Math.round(bot.rating)));
    }
  });

  it('lists a bot without rated games under “Unranked”, below the bots that have played', async () => {
    const heading = page.getByRole('heading', { name: 'Unranked', exact: true });
    await expect(heading.isVisible()).resolves.toBe(true);
    const delta = rowOf('delta');
    await expect(delta.locator('td.games').textContent()).resolves.toBe('0');
    await expect(page.locator('#lb-unranked').locator(delta).count()).resolves.toBe(1);
    await expect(page.locator(RANKED, { hasText: 'delta' }).count()).resolves.toBe(0);
    const lowestRanked = (await page.locator(RANKED).last().boundingBox())!;
    const headingBox = (await heading.boundingBox())!;
    const deltaBox = (await delta.boundingBox())!;
    expect(headingBox.y).toBeGreaterThan(lowestRanked.y + lowestRanked.height - 1);
    expect(deltaBox.y).toBeGreaterThan(headingBox.y);
    await expect(page.locator('#lb-unranked-note').textContent()).resolves.toContain(
      `fewer than ${MIN_RANKED_GAMES} rated games`,
    );
  });

  it('marks a bot that matchmaking paused, and only that one', async () => {
    const charlie = (await request(h.app).get(`/v1/bots/${bots.charlie.id}`)).body;
    expect(charlie.paused).not.toBeNull();
    const badge = rowOf('charlie').locator('th .badge.paused');
    await expect(badge.isVisible()).resolves.toBe(true);
    await expect(badge.textContent()).resolves.toContain('paused');
    await expect(badge.getAttribute('title')).resolves.toContain(charlie.paused.reason);
    expect(await page.locator('table.standings tbody .badge.paused').count()).toBe(1);
  });

  it('marks provisional ratings and shows the strength interval, or — when there is none', async () => {
    const alpha = rowOf('alpha');
    await expect(alpha.locator('td.elo').textContent()).resolves.toContain('provisional');
    await expect(alpha.locator('td.strength').textContent()).resolves.toMatch(/1512.*1401.*1631/);
    const delta = rowOf('delta');
    expect((await delta.locator('td.strength').textContent())?.trim()).toBe('—');
    expect((await delta.locator('td.last-played').textContent())?.trim()).toBe('never');
    await screenshot(page, 'leaderboard');
  });

  it('sorts both tables by a column when its header is clicked, and reverses on a second click', async () => {
    await page.getByRole('button', { name: /^Bot/ }).click();
    expect(await rowNames(RANKED)).toEqual(['foxtrot', 'golf']);
    expect(await rowNames(UNRANKED)).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    await expect(page.locator('th[data-sort="bot"]').getAttribute('aria-sort')).resolves.toBe('ascending');
    await page.getByRole('button', { name: /^Bot/ }).click();
    expect(await rowNames(RANKED)).toEqual(['golf', 'foxtrot']);
    expect(await rowNames(UNRANKED)).toEqual(['delta', 'charlie', 'bravo', 'alpha']);
    await expect(page.locator('th[data-sort="bot"]').getAttribute('aria-sort')).resolves.toBe('descending');
    expect(page.url()).toContain('sort=bot&dir=desc');
    await page.getByRole('button', { name: /^Rank/ }).click();
  });

  it('fits a 375 px wide phone screen: each bot a card, every column on screen, nothing scrolls sideways', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await phone.goto(`${site.origin}/`);
    await phone.locator(UNRANKED).nth(3).waitFor();
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    await screenshot(phone, 'leaderboard-375');
    for (const table of ['#leaderboard', '#unranked']) {
      const box = phone.locator('.table-scroll', { has: phone.locator(table) });
      expect(await box.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true);
      // Every cell of every row is drawn inside the screen, each value with its column's name.
      const cells = await box.locator('tbody tr').evaluateAll((rows) =>
        rows.map((row) =>
          [...row.children].map((cell) => {
            const r = cell.getBoundingClientRect();
            const label = cell.getAttribute('data-label') ?? '';
            return { left: r.left, right: r.right, height: r.height, label, text: cell.textContent ?? '' };
          }),
        ),
      );
      expect(cells.length).toBeGreaterThan(0);
      for (const row of cells) {
        expect(row.length).toBe(table === '#leaderboard' ? 7 : 6);
        for (const cell of row) {
          expect(cell.left, cell.text).toBeGreaterThanOrEqual(0);
          expect(cell.right, cell.text).toBeLessThanOrEqual(375);
          expect(cell.height, cell.text).toBeGreaterThan(0);
        }
        expect(row.map((cell) => cell.label).filter(Boolean)).toEqual([
          'Elo',
          'Strength',
          'Games',
          'W/D/L',
          'Last played',
        ]);
      }
    }
    // The sort buttons are still there, above the cards, and sort them.
    await phone.getByRole('button', { name: /^Bot/ }).click();
    expect(await phone.locator(`${RANKED} th.name a`).allTextContents()).toEqual(['foxtrot', 'golf']);
    await screenshot(phone, 'leaderboard-375-scrolled');
    await phone.goto(`${site.origin}/bots/${bots.alpha.id}`);
    await phone.locator('#chart svg').waitFor();
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    await screenshot(phone, 'bot-375');
    await phone.close();
  });

  it('shows the slow pool apart at /?pool=slow: none of these bots opted in', async () => {
    const slow = await browser.newPage();
    try {
      await slow.goto(`${site.origin}/?pool=slow`);
      await slow.locator('#lb-empty', { hasText: 'No bot has played in the slow pool yet' }).waitFor();
      expect(await slow.locator('#lb-slow-note').isVisible()).toBe(true);
      expect(await slow.getByRole('link', { name: 'Slow pool' }).getAttribute('aria-current')).toBe('page');
      expect(await slow.locator('table.standings tbody tr').count()).toBe(0);
    } finally {
      await slow.close();
    }
    await page.goto(`${site.origin}/`);
    await page.locator(RANKED).first().waitFor();
    expect(await page.getByRole('link', { name: 'Arena pool' }).getAttribute('aria-current')).toBe('page');
  });

  it('refreshes by itself, without reloading the page', async () => {
    const fresh = await browser.newPage();
    await fresh.clock.install();
    await fresh.goto(`${site.origin}/`);
    await fresh.locator(UNRANKED).nth(3).waitFor();
    await fresh.evaluate(() => {
      (globalThis as { notReloaded?: boolean }).notReloaded = true;
    });
    await registerBot(h, { name: 'echo' });
    await fresh.clock.runFor(10_500);
    await fresh.getByRole('link', { name: 'echo', exact: true }).waitFor();
    expect(await fresh.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await fresh.close();
  });
});

describe("a bot's page", () => {
  it('shows its profile, with its description as text', async () => {
    await page.getByRole('link', { name: 'alpha', exact: true }).click();
    await page.waitForURL(`**/bots/${bots.alpha.id}`);
    await page.locator('#profile dd').first().waitFor();
    await expect(page.locator('h1').textContent()).resolves.toBe('alpha');
    await expect(page.locator('#description').textContent()).resolves.toBe(DESCRIPTION);
    expect(await page.locator('#description b, #description script').count()).toBe(0);
    const profile = await page.locator('#profile').textContent();
    expect(profile).toContain('push');
    expect(profile).toContain('active');
    expect(profile).toMatch(/2 games: \d won, \d drawn, \d lost/);
    expect(profile).toContain('provisional');
    expect(await page.title()).toBe('alpha · Reversi Arena');
  });

  it('draws its rating history with axes, one point per rated game and the start', async () => {
    const chart = page.locator('#chart svg');
    await chart.waitFor();
    // The game against bravo; charlie's forfeit moved no rating of alpha's, so it is no point.
    expect(await chart.locator('circle.pt').count()).toBe(2);
    expect(await chart.locator('circle.pt.start').count()).toBe(1);
    const labels = await chart.locator('text').allTextContents();
    expect(labels).toContain('Elo');
    expect(labels).toContain('Rated games played');
    expect(await chart.getAttribute('role')).toBe('img');
    await expect(chart.locator('desc').textContent()).resolves.toMatch(/^1 rated game: Elo from 1500 to \d+/);
  });

  it('lists its recent matches with opponents and results', async () => {
    const rows = page.locator('#matches tr');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    // Newest first: the game against bravo, then charlie's forfeit.
    await expect(rows.nth(0).locator('td').nth(1).textContent()).resolves.toBe('bravo');
    await expect(rows.nth(1).locator('td').nth(1).textContent()).resolves.toBe('charlie');
    await expect(rows.nth(1).locator('td').nth(3).textContent()).resolves.toBe(
      'win (opponent: invalid-response)',
    );
    expect(
      await rows
        .nth(0)
        .getByRole('link', { name: /Replay/ })
        .getAttribute('href'),
    ).toMatch(/^\/matches\/match_/);
    await screenshot(page, 'bot');
    expect(problems).toEqual([]);
  });

  it('shows why a bot is paused', async () => {
    await page.goto(`${site.origin}/bots/${bots.charlie.id}`);
    const paused = page.locator('#paused');
    await paused.waitFor();
    await expect(paused.textContent()).resolves.toMatch(
      /Matchmaking paused.*its last 2 matches ended by its faults/,
    );
  });

  it('has an empty state when the bot has no rated games', async () => {
    await page.goto(`${site.origin}/bots/${bots.delta.id}`);
    await page.locator('#chart-empty').waitFor();
    await page.locator('#matches-empty').waitFor(); // the match list loads after the chart
    await expect(page.locator('#profile').textContent()).resolves.toContain('pull');
  });

  it('says so when there is no such bot', async () => {
    await page.goto(`${site.origin}/bots/bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH`);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('There is no bot with the id');
  });
});

describe('house bots', () => {
  it('are marked on the leaderboard and their page says who plays them', async () => {
    await ensureHouseBots(h.stores, { now: Date.now(), random: randomBytes, startingRating: 1500 });
    await page.goto(`${site.origin}/`);
    const houseRow = page.locator('table.standings tbody tr', { hasText: 'house-greedy' });
    await expect(houseRow.locator('th .badge').textContent()).resolves.toBe('house');
    const ownRow = page.locator(`table.standings tbody tr[data-bot-id="${bots.alpha.id}"]`);
    await expect(ownRow.locator('th .badge').count()).resolves.toBe(0);

    await houseRow.locator('th a').click();
    await page.locator('#profile dd').first().waitFor();
    await expect(page.locator('#profile').textContent()).resolves.toContain(
      "house (the arena's own sparring partner",
    );
  });
});
