import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the pages' own JavaScript, checked by their browser tests, has no types.
import { formatDuration } from '../../public/assets/js/common.js';
import type { BotState, components } from '../../src/contract/index.ts';
import { HOUSE_BOTS } from '../../src/house/roster.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { answer, type LoopbackBot, startLoopbackBot } from '../support/loopback-bot.ts';
import { playOut } from '../support/match-worker.ts';
import { schedulerFor } from '../support/scheduler.ts';
import { serve } from '../support/serve.ts';
import { controlsOffScreen, launchBrowser, pageProblems, screenshot } from './browser.ts';

type Leaderboard = components['schemas']['SoloLeaderboard'];

const DAY_MS = 86_400_000;

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
let page: Page;
let problems: string[];
const loopbacks: LoopbackBot[] = [];
const bots = {} as Record<'alpha' | 'bravo' | 'charlie', RegisteredBot>;

/** A push bot answering the first (or last) of the state's legal actions, with its colour. */
async function pushBot(name: string, pick: 'first' | 'last') {
  const server = await startLoopbackBot((seen, res) => {
    const { legalActions = [] } = JSON.parse(seen.body) as BotState;
    answer(res, 200, pick === 'first' ? legalActions[0] : legalActions.at(-1));
  });
  loopbacks.push(server);
  return registerBot(h, { name, url: server.url });
}

async function enter(bot: RegisteredBot): Promise<string[]> {
  const res = await request(h.app).post('/v1/solo/league/entries').set(bearer(bot.token));
  expect(res.status).toBe(201);
  return res.body.matches;
}

async function leaderboard(week?: string): Promise<Leaderboard> {
  const res = await request(h.app)
    .get('/v1/solo/leaderboard')
    .query(week ? { week } : {});
  expect(res.status).toBe(200);
  return res.body;
}

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness({ HOUSE_BOTS: 'true' }), launchBrowser()]);
  site = await serve(h);
  // The house bots that play the solo game enter as the scheduler enters them each week.
  const { scheduler, close } = await schedulerFor(h);
  let house: readonly string[];
  try {
    house = (await scheduler.runEvents())?.leagueEntries ?? [];
  } finally {
    await close();
  }
  expect(house.length).toBeGreaterThan(0);
  bots.alpha = await pushBot('alpha', 'first');
  bots.bravo = await pushBot('bravo', 'last');
  const games = [...(await enter(bots.alpha)), ...(await enter(bots.bravo))];
  for (const id of house) {
    const page = await request(h.app).get('/v1/matches').query({ bot: id, limit: 100 });
    games.push(...page.body.items.map((match: { id: string }) => match.id));
  }
  await playOut(h, games);
  // charlie enters once the workers are gone: its games stay queued, none played.
  bots.charlie = await registerBot(h, { name: 'charlie' });
  await enter(bots.charlie);
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  problems = pageProblems(page);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await Promise.all(loopbacks.map((server) => server.close()));
  await h?.close();
});

/** The standings table as the page shows it: rank, bot, house mark, score, time used, games played. */
function shownRows(p: Page) {
  return p.locator('#standings tr').evaluateAll((rows) =>
    rows.map((row) => {
      const cell = (selector: string) => row.querySelector(selector)?.textContent?.trim() ?? '';
      return {
        rank: cell('td.rank'),
        bot: cell('th a'),
        href: row.querySelector('th a')?.getAttribute('href') ?? '',
        house: row.querySelector('th .badge.house') !== null,
        score: cell('td.score'),
        timeUsed: cell('td.time-used'),
        played: cell('td.played'),
      };
    }),
  );
}

/** The rows the API's standings call for. */
const expectedRows = (board: Leaderboard) =>
  board.items.map((item) => ({
    rank: String(item.rank),
    bot: item.bot.name,
    href: `/bots/${item.bot.id}`,
    house: item.house,
    score: String(item.score),
    timeUsed: formatDuration(item.timeUsedMs),
    played: `${item.played} / ${item.games}`,
  }));

async function waitForRows(p: Page, count: number) {
  await p
    .locator('#standings tr')
    .nth(count - 1)
    .waitFor();
}

describe('the solo league page at /solo', () => {
  it("lists the running week's standings as the API ranks them, house bots marked", async () => {
    const board = await leaderboard();
    expect(board.items.map((item) => item.bot.name)).toEqual(
      expect.arrayContaining(['alpha', 'bravo', 'charlie', 'house-random']),
    );
    // The games were played: the bots that played have a score and time; charlie's wait.
    const alpha = board.items.find((item) => item.bot.id === bots.alpha.id)!;
    expect(alpha).toMatchObject({ played: 20, games: 20, house: false });
    expect(alpha.score).toBeGreaterThan(0);
    expect(board.items.find((item) => item.bot.id === bots.charlie.id)).toMatchObject({
      played: 0,
      score: 0,
    });
    expect(
      board.items.find((item) => item.bot.id === HOUSE_BOTS.find((b) => b.engine === 'random')!.id),
    ).toMatchObject({ house: true });

    await page.goto(`${site.origin}/solo`);
    await waitForRows(page, board.items.length);
    expect(await shownRows(page)).toEqual(expectedRows(board));
    await expect(page.locator('#league-status').textContent()).resolves.toBe(
      `${board.items.length} bots entered.`,
    );
    // The page is in the site's navigation, marked as the current one.
    await expect(page.locator('.site-nav a[aria-current="page"]').textContent()).resolves.toBe('Solo league');
    await screenshot(page, 'solo-league');
    expect(problems).toEqual([]);
  });

  it("shows the running week's dates and layouts, not yet open for practice", async () => {
    const league = (await request(h.app).get('/v1/solo/league')).body as components['schemas']['SoloLeague'];
    await expect(page.locator('#week-title').textContent()).resolves.toBe(
      `The week of ${league.week} (running)`,
    );
    expect(
      await page
        .locator('#week-dates time')
        .evaluateAll((times) => times.map((t) => t.getAttribute('datetime'))),
    ).toEqual([league.startsAt, league.endsAt]);
    expect(await page.locator('#layouts li').allTextContents()).toEqual(league.layouts.map(String));
    expect(await page.locator('#layouts a').count()).toBe(0);
    await expect(page.locator('#layouts-note').textContent()).resolves.toContain('only once the week ends');
    expect(await page.locator('#week').inputValue()).toBe(league.week);
  });

  it('shows the week of any of its days given in ?week=, from its Monday', async () => {
    const board = await leaderboard();
    const wednesday = new Date(Date.parse(board.startsAt) + 2 * DAY_MS).toISOString().slice(0, 10);
    await page.goto(`${site.origin}/solo?week=${wednesday}`);
    await waitForRows(page, board.items.length);
    expect(new URL(page.url()).searchParams.get('week')).toBe(board.week);
    expect(await shownRows(page)).toEqual(expectedRows(await leaderboard(board.week)));
  });

  it('shows an earlier week from the week picker, its layouts linked for practice', async () => {
    const running = await leaderboard();
    const previous = new Date(Date.parse(running.startsAt) - 7 * DAY_MS).toISOString().slice(0, 10);
    await page.goto(`${site.origin}/solo`);
    // The page sets the picker to the week it shows once the league has answered: a week filled
    // in before that was overwritten, and the form then asked for the running week (a 30 s wait
    // for the other address, 2 CI runs in 6).
    await page.locator('#week-title', { hasText: `The week of ${running.week}` }).waitFor();
    await page.locator('#week').fill(previous);
    await page.getByRole('button', { name: 'Show the week' }).click();
    await page.waitForURL(`**/solo?week=${previous}`);
    await page.locator('#standings-empty').waitFor();
    const board = await leaderboard(previous);
    expect(board.items).toEqual([]);
    await expect(page.locator('#week-title').textContent()).resolves.toBe(`The week of ${previous}`);
    expect(await page.locator('#standings-wrap').isVisible()).toBe(false);
    const links = page.locator('#layouts a');
    expect(await links.allTextContents()).toEqual(board.layouts.map(String));
    await page.getByRole('link', { name: 'Next week →' }).click();
    await page.waitForURL(`**/solo?week=${running.week}`);
    await waitForRows(page, running.items.length);
    expect(problems).toEqual([]);
  });

  it("opens an ended week's layout on /play, to practise with the league's scoring", async () => {
    const running = await leaderboard();
    const previous = new Date(Date.parse(running.startsAt) - 7 * DAY_MS).toISOString().slice(0, 10);
    const board = await leaderboard(previous);
    await page.goto(`${site.origin}/solo?week=${previous}`);
    await page.getByRole('link', { name: `Practise layout ${board.layouts[0]}` }).click();
    await page.waitForURL(/\/play\?layout=/);
    // The setup shows once the page has filled it in.
    await page.locator('#solo-form').waitFor();
    expect(await page.locator('#solo-layout').inputValue()).toBe(String(board.layouts[0]));
    expect(await page.getByLabel('Their values').isChecked()).toBe(true);
    // The week has ended: the arena takes its layout for practice (no worker here: it stays queued).
    await page.getByRole('button', { name: 'Start the solo game' }).click();
    await page.waitForURL(/[?&]match=match_/);
    const matchId = new URL(page.url()).searchParams.get('match')!;
    const match = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(match).toMatchObject({ game: 'solo', rules: { layout: board.layouts[0], scoring: 'points' } });
    expect(problems).toEqual([]);
  });

  it('says so when the week asked for is no league week', async () => {
    await page.goto(`${site.origin}/solo?week=2025-01-06`);
    const error = page.locator('#league-error');
    await error.waitFor();
    const res = await request(h.app).get('/v1/solo/leaderboard').query({ week: '2025-01-06' });
    expect(res.status).toBe(404);
    await expect(error.textContent()).resolves.toBe(res.body.detail);
    expect(await page.locator('#league').isVisible()).toBe(false);
  });

  it('fits a 375 px wide phone screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 } });
    const board = await leaderboard();
    await phone.goto(`${site.origin}/solo`);
    await waitForRows(phone, board.items.length);
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    await screenshot(phone, 'solo-league-375');
    await phone.close();
  });
});
