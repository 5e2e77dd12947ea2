import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUSE_BOTS } from '../../src/house/roster.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchWorkerFor } from '../support/match-worker.ts';
import { serve } from '../support/serve.ts';
import { controlsOffScreen, launchBrowser, pageProblems, screenshot } from './browser.ts';

const HOUSE_RANDOM = HOUSE_BOTS.find((bot) => bot.name === 'house-random')!;

let h: Harness;
let worker: Awaited<ReturnType<typeof matchWorkerFor>>;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
let loopback: LoopbackBot;
let page: Page;
let problems: string[];

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness({ HOUSE_BOTS: 'true' }), launchBrowser()]);
  // The house side is played by a real match worker (BullMQ, the runner, the house bot in-process),
  // the guest's by the page, through the public pull API.
  worker = await matchWorkerFor(h);
  site = await serve(h);
  loopback = await startLoopbackBot(playsFirstLegal());
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  problems = pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
  await loopback?.close();
  await site?.close();
  await worker?.close();
  await h?.close();
});

/** The guest this browser context registered, from its localStorage. */
async function storedGuest(p: Page): Promise<{ id: string; name: string; token: string }> {
  return JSON.parse(
    (await p.evaluate<string | null>("localStorage.getItem('reversi-arena.guest')")) ?? 'null',
  );
}

const matchIdOf = (p: Page) => new URL(p.url()).searchParams.get('match')!;

/** The board as the page draws it: 8 strings of B, W and '.', rank 1 first (the API's notation). */
function drawnBoard(p: Page): Promise<string[]> {
  return p.locator('.play-board button[data-square]').evaluateAll((cells) => {
    const text = cells.map((cell) => {
      const disc = cell.querySelector('.disc');
      return disc?.classList.contains('black') ? 'B' : disc?.classList.contains('white') ? 'W' : '.';
    });
    return Array.from({ length: 8 }, (_, rank) => text.slice(rank * 8, rank * 8 + 8).join(''));
  });
}

/**
 * Plays the guest's side by clicking a square marked `data-legal` whenever there is one, until the
 * result shows (or `moves` moves were made). Answers the squares played.
 */
async function clickLegalSquares(p: Page, moves = Number.POSITIVE_INFINITY): Promise<string[]> {
  const played: string[] = [];
  while (played.length < moves) {
    await p.locator('[data-legal], [data-result]').first().waitFor({ timeout: 20_000 });
    if ((await p.locator('[data-result]').count()) > 0) break;
    const square = p.locator('[data-legal]').first();
    played.push((await square.getAttribute('data-square'))!);
    await square.click();
  }
  return played;
}

async function startGame(p: Page, opponent: string, colour: 'Black' | 'White') {
  await p.locator('#opponent option', { hasText: opponent }).waitFor({ state: 'attached' });
  await p.locator('#opponent').selectOption({ label: opponent });
  await p.locator(`input[name="colour"][value="${colour.toLowerCase()}"]`).check();
  await p.getByRole('button', { name: 'Start the game' }).click();
  await p.waitForURL(/[?&]match=match_/);
}

describe('the /play page', () => {
  it('offers the house bots first, then the bots that accept challenges, with 60 s a move by default', async () => {
    await registerBot(h, { name: 'zz-open', url: loopback.url });
    await registerBot(h, { name: 'aa-shy', url: loopback.url, acceptsChallenges: false });
    await page.goto(`${site.origin}/play`);
    await page.locator('#opponent option').first().waitFor({ state: 'attached' });
    const options = await page.locator('#opponent option').allTextContents();
    expect(options).toEqual([
      'house-random',
      'house-greedy',
      'house-alphabeta-1',
      'house-alphabeta-4',
      'zz-open',
    ]);
    expect(await page.locator('#time').inputValue()).toBe('60000');
    expect(await page.locator('#time option').allTextContents()).toEqual([
      '30 s a move',
      '1 min a move',
      '2 min a move',
    ]);
    // No guest until a game starts.
    expect(await storedGuest(page)).toBeNull();
  });

  it('plays a whole game against house-random by clicking legal squares, to its result', async () => {
    await startGame(page, 'house-random', 'Black');
    const matchId = matchIdOf(page);
    const guest = await storedGuest(page);
    expect(guest.name).toMatch(/^guest-[0-9a-f]{8}$/);
    expect(await page.evaluate("localStorage.getItem('reversi-arena.play.match')")).toBe(matchId);

    // Each square is a button named by its square; white (house-random) moves first.
    expect(await page.locator('.play-board button[data-square]').count()).toBe(64);
    await page.locator('[data-legal]').first().waitFor();
    await expect(page.getByRole('button', { name: /^d4, white/ }).count()).resolves.toBe(1);
    expect(await page.locator('.clock.running').getAttribute('data-color')).toBe('black');
    expect(await page.locator('#clock-black .time').textContent()).toMatch(/^0:(59|60)$|^1:00$/);
    await screenshot(page, 'play');

    const played = await clickLegalSquares(page);
    const result = page.locator('[data-result]');
    await expect(result.textContent()).resolves.toMatch(/^(You won |You lost |Draw, )\d+–\d+/);

    const match = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(match).toMatchObject({
      status: 'finished',
      rated: false,
      ratings: null,
      black: { id: guest.id },
      white: { id: HOUSE_RANDOM.id },
      rules: { timeLimitMs: 60_000, overageMs: 0 },
      result: { reason: 'completed' },
    });
    const guestMoves = match.moves.filter(
      (move: { player: string; square: string }) => move.player === 'black' && move.square !== 'pass',
    );
    expect(guestMoves.map((move: { square: string }) => move.square)).toEqual(played);
    expect(await result.getAttribute('data-result')).toBe(
      match.result.winner === null ? 'draw' : match.result.winner === 'black' ? 'win' : 'loss',
    );
    // The score as the player counts it, their discs first; the lines of the game are gone.
    const { black: mine, white: theirs } = match.result.discs;
    await expect(result.textContent()).resolves.toBe(
      match.result.winner === null
        ? `Draw, ${mine}–${theirs}.`
        : match.result.winner === 'black'
          ? `You won ${mine}–${theirs}.`
          : `You lost ${mine}–${theirs} to house-random.`,
    );
    expect(await page.locator('#last-move').textContent()).toBe('');
    expect(await page.locator('.kbd-help').isVisible()).toBe(false);
    // The final position as the arena has it, and the last move marked.
    const state = (await request(h.app).get(`/v1/matches/${matchId}/state`)).body;
    expect(await drawnBoard(page)).toEqual(state.board);
    const last = match.moves.filter((move: { square: string }) => move.square !== 'pass').at(-1);
    expect(await page.locator('.play-board .cell.placed').getAttribute('data-square')).toBe(last.square);
    expect(
      (
        await page
          .locator('.play-board .cell.flipped')
          .evaluateAll((cells) => cells.map((c) => c.dataset.square))
      ).sort(),
    ).toEqual([...last.flips].sort());
    await screenshot(page, 'play-result');
    // Never ranked: the guest is on no leaderboard.
    const board = (await request(h.app).get('/v1/leaderboard').query({ limit: 100 })).body;
    expect([...board.items, ...board.unranked].map((e: { bot: { id: string } }) => e.bot.id)).not.toContain(
      guest.id,
    );
    expect(problems).toEqual([]);
  });

  it('resumes a game after a reload in the middle, from the address or from this browser alone', async () => {
    await page.getByRole('button', { name: 'New game' }).click();
    await startGame(page, 'house-random', 'White');
    const matchId = matchIdOf(page);
    const guest = await storedGuest(page);
    expect(await clickLegalSquares(page, 3)).toHaveLength(3);
    await page.locator('[data-legal]').first().waitFor();

    await page.reload();
    await page.locator('[data-legal]').first().waitFor();
    expect(matchIdOf(page)).toBe(matchId);
    const state = (await request(h.app).get(`/v1/matches/${matchId}/state`).set(bearer(guest.token))).body;
    expect(state.status).toBe('running');
    expect(await drawnBoard(page)).toEqual(state.board);
    const legal = await page
      .locator('[data-legal]')
      .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-square')));
    expect(legal).toEqual(state.legalMoves);
    expect(await clickLegalSquares(page, 2)).toHaveLength(2);

    // Without the match in the address, the browser's own memory of it resumes the same game.
    await page.goto(`${site.origin}/play`);
    await page.locator('[data-legal]').first().waitFor();
    expect(matchIdOf(page)).toBe(matchId);
    expect(await storedGuest(page)).toEqual(guest); // registered once
    await clickLegalSquares(page);
    await page.locator('[data-result]').waitFor();
    const match = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(match).toMatchObject({ status: 'finished', rated: false, white: { id: guest.id } });
    expect(problems).toEqual([]);
  });

  it('fits a 375 px wide phone screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await phone.goto(`${site.origin}/play`);
    await startGame(phone, 'house-random', 'Black');
    await phone.locator('[data-legal]').first().waitFor();
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    await screenshot(phone, 'play-375');
    await clickLegalSquares(phone);
    await phone.close();
  });
});

describe("a bot's page", () => {
  let target: RegisteredBot;
  let mine: RegisteredBot;
  beforeAll(async () => {
    target = await registerBot(h, { name: 'target', url: loopback.url });
    mine = await registerBot(h, { name: 'mine', url: loopback.url });
  });

  it('opens /play with the bot as the opponent from "Play this bot"', async () => {
    await page.goto(`${site.origin}/bots/${target.id}`);
    await page.getByRole('link', { name: 'Play this bot' }).click();
    await page.waitForURL(`**/play?opponent=${target.id}`);
    await page.locator('#opponent option').first().waitFor({ state: 'attached' });
    expect(await page.locator('#opponent').inputValue()).toBe(target.id);
  });

  it('creates an unrated match with "Challenge with my bot" and opens it', async () => {
    await page.goto(`${site.origin}/bots/${target.id}`);
    await page.getByLabel("Your bot's token").fill(mine.token);
    await page.getByLabel('Your bot plays').selectOption('white');
    await screenshot(page, 'bot-play');
    await page.getByRole('button', { name: 'Challenge with my bot' }).click();
    await page.waitForURL(/\/matches\/match_/);
    const matchId = new URL(page.url()).pathname.split('/').pop()!;
    const match = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(match).toMatchObject({ rated: false, black: { id: target.id }, white: { id: mine.id } });
    // The token was kept in the page's memory only.
    expect(await page.evaluate<string>('JSON.stringify({ ...localStorage })')).not.toContain(mine.token);
    expect(page.url()).not.toContain(mine.token);
  });

  it("shows the problem's message when the challenge is refused", async () => {
    await page.goto(`${site.origin}/bots/${target.id}`);
    await page.getByLabel("Your bot's token").fill(mine.token);
    // The bot stops taking challenges after the page was loaded: the arena refuses (403).
    await request(h.app)
      .patch(`/v1/bots/${target.id}`)
      .set(bearer(target.token))
      .send({ acceptsChallenges: false });
    await page.getByRole('button', { name: 'Challenge with my bot' }).click();
    const alert = page.locator('#challenge-error');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toBe('target does not accept challenges.');
    expect(new URL(page.url()).pathname).toBe(`/bots/${target.id}`);
    await page.reload();
    // Filled and shown once the page has read the bot, after the reload itself has finished.
    await page.locator('#play-closed').waitFor();
    await expect(page.locator('#play-closed').textContent()).resolves.toBe(
      'This bot does not accept challenges.',
    );
    expect(await page.getByRole('button', { name: 'Challenge with my bot' }).isVisible()).toBe(false);
  });
});
