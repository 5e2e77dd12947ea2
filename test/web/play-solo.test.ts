import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { matchWorkerFor } from '../support/match-worker.ts';
import { serve } from '../support/serve.ts';
import { controlsOffScreen, launchBrowser, pageProblems, screenshot } from './browser.ts';

/** The solo state as the API sends it (the fields these tests read). */
interface SoloState {
  board: string[];
  ply: number;
  status: string;
  score: number;
  history: unknown[];
  tokens: { square: string; hidden: boolean; colour?: string; value?: number }[];
  captured: { colour: string; value: number }[];
  legalActions: { action: string; colour: 'black' | 'white' }[];
}

interface Guest {
  id: string;
  name: string;
  token: string;
}

let h: Harness;
let worker: Awaited<ReturnType<typeof matchWorkerFor>>;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness(), launchBrowser()]);
  // The arena's side (starting the game, checking each move) is a real match worker; the guest's
  // moves come from the page, through the public pull API.
  worker = await matchWorkerFor(h);
  site = await serve(h);
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  problems = pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await worker?.close();
  await h?.close();
});

async function storedGuest(p: Page): Promise<Guest> {
  return JSON.parse(
    (await p.evaluate<string | null>("localStorage.getItem('reversi-arena.guest')")) ?? 'null',
  );
}

const matchIdOf = (p: Page) => new URL(p.url()).searchParams.get('match')!;

async function stateOf(matchId: string, guest: Guest): Promise<SoloState> {
  const res = await request(h.app).get(`/v1/matches/${matchId}/state`).set(bearer(guest.token));
  expect(res.status).toBe(200);
  return res.body;
}

/**
 * The board as the page draws it, in the API's letters (`B`/`W` discs, `?` a face-down token,
 * `b`/`w`/`o` a turned one, `.` empty), and the value each turned token shows, by square.
 */
async function drawnBoard(p: Page): Promise<{ board: string[]; values: Record<string, string> }> {
  const cells = await p.locator('#solo-board button[data-square]').evaluateAll((buttons) =>
    buttons.map((button) => {
      const disc = button.querySelector('.disc')!;
      const has = (name: string) => disc.classList.contains(name);
      const token = has('token');
      const letter = !token
        ? has('black')
          ? 'B'
          : has('white')
            ? 'W'
            : '.'
        : has('face-down')
          ? '?'
          : has('black')
            ? 'b'
            : has('white')
              ? 'w'
              : has('blank')
                ? 'o'
                : 'x';
      return { square: button.getAttribute('data-square')!, letter, text: disc.textContent ?? '' };
    }),
  );
  const letters = cells.map((cell) => cell.letter);
  const values: Record<string, string> = {};
  for (const cell of cells) if ('bwo'.includes(cell.letter)) values[cell.square] = cell.text;
  return {
    board: Array.from({ length: 8 }, (_, rank) => letters.slice(rank * 8, rank * 8 + 8).join('')),
    values,
  };
}

/** What the state says the page must draw: its board, and each turned token's value as text. */
function expectedBoard(state: SoloState) {
  const values: Record<string, string> = {};
  for (const token of state.tokens) if (!token.hidden) values[token.square] = String(token.value);
  return { board: state.board, values };
}

/** The squares the page marks as playable now. */
const marked = (p: Page, mark: 'data-legal' | 'data-other') =>
  p
    .locator(`#solo-board button[${mark}]`)
    .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-square')!));

/** Waits until the guest may move again, or the game is over; true while it goes on. */
async function awaitTurn(p: Page): Promise<boolean> {
  await p
    .locator('#solo-board button[data-legal], #solo-board button[data-other], #solo-result[data-result]')
    .first()
    .waitFor({ timeout: 20_000 });
  return (await p.locator('#solo-result[data-result]').count()) === 0;
}

async function pickColour(p: Page, colour: 'black' | 'white') {
  const button = p.locator(`#solo-colour button[data-colour="${colour}"]`);
  await button.click();
  expect(await button.getAttribute('aria-pressed')).toBe('true');
}

/**
 * Plays up to `moves` moves, black and white in turn (`before` moves were made before; the other
 * colour when the one due has no legal square), each on the first square marked for it. Answers the
 * (square, colour) pairs clicked.
 */
async function playMoves(p: Page, moves = Number.POSITIVE_INFINITY, before = 0) {
  const played: { square: string; colour: 'black' | 'white' }[] = [];
  while (played.length < moves && (await awaitTurn(p))) {
    let colour: 'black' | 'white' = (before + played.length) % 2 === 0 ? 'black' : 'white';
    await pickColour(p, colour);
    if ((await marked(p, 'data-legal')).length === 0) {
      colour = colour === 'black' ? 'white' : 'black';
      await pickColour(p, colour);
    }
    const square = p.locator('#solo-board button[data-legal]').first();
    played.push({ square: (await square.getAttribute('data-square'))!, colour });
    await square.click();
  }
  return played;
}

async function startSolo(p: Page, layout: string, scoring: 'Tokens captured' | 'Their values') {
  await p.locator('#solo-layout').fill(layout);
  await p.getByLabel(scoring).check();
  await p.getByRole('button', { name: 'Start the solo game' }).click();
  await p.waitForURL(/[?&]match=match_/);
}

describe('the solo puzzle on /play', () => {
  let matchId: string;
  let guest: Guest;
  const played: { square: string; colour: 'black' | 'white' }[] = [];

  it('is offered beside the game against a bot, with a practice layout filled in', async () => {
    await page.goto(`${site.origin}/play`);
    await page.getByRole('heading', { name: 'Solo puzzle' }).waitFor();
    await expect(page.getByRole('heading', { name: 'Against a bot' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Start the game' }).isVisible()).resolves.toBe(true);
    const layout = await page.locator('#solo-layout').inputValue();
    expect(Number(layout)).toBeGreaterThanOrEqual(0);
    expect(Number(layout)).toBeLessThan(2 ** 30);
    expect(await page.getByLabel('Tokens captured').isChecked()).toBe(true);
    await screenshot(page, 'play-setup');
  });

  it('refuses a layout that can be no layout, before asking the arena', async () => {
    for (const layout of ['2147483648', '12a', '']) {
      await page.locator('#solo-layout').fill(layout);
      await page.getByRole('button', { name: 'Start the solo game' }).click();
      const error = page.locator('#solo-layout-error');
      await expect(error.textContent()).resolves.toBe('A layout is a whole number from 0 to 2147483647.');
      expect(await page.locator('#solo-layout').getAttribute('aria-invalid')).toBe('true');
    }
    expect(await storedGuest(page)).toBeNull(); // nothing was sent: no guest yet
  });

  it("shows the arena's refusal of a layout of the running league week", async () => {
    const league = (await request(h.app).get('/v1/solo/league')).body;
    await page.locator('#solo-layout').fill(String(league.layouts[0]));
    await page.getByRole('button', { name: 'Start the solo game' }).click();
    const alert = page.locator('#play-error');
    await alert.waitFor();
    const guest = await storedGuest(page);
    const refused = await request(h.app)
      .post('/v1/solo')
      .set(bearer(guest.token))
      .send({ layout: league.layouts[0] });
    expect(refused.status).toBe(403);
    await expect(alert.textContent()).resolves.toBe(refused.body.detail);
    expect(await page.locator('#solo-layout').getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#setup').isVisible()).toBe(true);
    expect(new URL(page.url()).searchParams.get('match')).toBeNull();
    // The browser logs the refused request; nothing else went wrong.
    expect(problems).toEqual([expect.stringMatching(/^console: Failed to load resource: .* 403/)]);
    problems.length = 0;
  });

  it('starts a game on the chosen layout and scoring, as the guest this browser keeps', async () => {
    await startSolo(page, '4242', 'Their values');
    matchId = matchIdOf(page);
    guest = await storedGuest(page);
    expect(guest.name).toMatch(/^guest-[0-9a-f]{8}$/);
    expect(await page.locator('#play-error').isVisible()).toBe(false); // the last refusal is gone
    const match = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(match).toMatchObject({
      game: 'solo',
      rated: false,
      black: { id: guest.id },
      white: { id: guest.id },
      rules: { layout: 4242, scoring: 'points' },
    });
    expect(await awaitTurn(page)).toBe(true);
    await expect(page.locator('#title').textContent()).resolves.toBe('Solo puzzle, layout 4242');
    // 24 face-down tokens, each a named button, and the four centre discs.
    const state = await stateOf(matchId, guest);
    expect(await drawnBoard(page)).toEqual(expectedBoard(state));
    expect(state.board.join('').split('?')).toHaveLength(25);
    await expect(
      page.getByRole('button', { name: 'a1, face-down token', exact: true }).count(),
    ).resolves.toBe(1);
    await expect(page.getByRole('button', { name: /^d4, white disc/ }).count()).resolves.toBe(1);
    await expect(page.locator('#solo-score').textContent()).resolves.toBe('0');
    await screenshot(page, 'play-solo');
  });

  it("marks the squares of the chosen colour's legal placements, as legalActions lists them", async () => {
    const state = await stateOf(matchId, guest);
    const squares = (colour: string) =>
      state.legalActions.filter((a) => a.colour === colour).map((a) => a.action);
    const only = (colour: string, other: string) =>
      squares(colour).filter((square) => !squares(other).includes(square));
    expect(state.legalActions.length).toBeGreaterThan(0);
    for (const colour of ['black', 'white'] as const) {
      const other = colour === 'black' ? 'white' : 'black';
      await pickColour(page, colour);
      expect(await marked(page, 'data-legal')).toEqual(squares(colour));
      expect(await marked(page, 'data-other')).toEqual(only(other, colour));
    }
    // A square only the other colour may take is not played with this one: the page says so.
    await pickColour(page, 'black');
    const whiteOnly = only('white', 'black')[0]!;
    expect(whiteOnly).toBeDefined(); // at the start, d3 takes black and e3 white (and so on around)
    // `force`: the square is aria-disabled (it takes no black disc), which Playwright would wait out.
    await page.locator(`#solo-board button[data-square="${whiteOnly}"]`).click({ force: true });
    await expect(page.locator('#solo-turn').textContent()).resolves.toBe(
      `Only a white disc may go on ${whiteOnly}: pick White first.`,
    );
    expect((await stateOf(matchId, guest)).ply).toBe(state.ply);
  });

  it('plays by clicking squares with the colour picked, drawing each position as the state has it', async () => {
    for (let move = 0; move < 6; move++) {
      played.push(...(await playMoves(page, 1, played.length)));
      expect(await awaitTurn(page)).toBe(true); // layout 4242 lasts longer than this
      // Only the guest acts: once its turn is back, the page shows the arena's latest state.
      const state = await stateOf(matchId, guest);
      expect(await drawnBoard(page)).toEqual(expectedBoard(state));
      await expect(page.locator('#solo-score').textContent()).resolves.toBe(String(state.score));
    }
    const state = await stateOf(matchId, guest);
    const turned = state.tokens.filter((token) => !token.hidden);
    expect(turned.length + state.captured.length).toBeGreaterThan(0); // the moves turned tokens up
    for (const token of turned) {
      const name = `${token.square}, ${token.colour} token worth ${token.value}`;
      await expect(page.getByRole('button', { name: new RegExp(`^${name}`) }).count()).resolves.toBe(1);
    }
  });

  it('resumes the game after a reload, from the address', async () => {
    await page.reload();
    expect(await awaitTurn(page)).toBe(true);
    expect(matchIdOf(page)).toBe(matchId);
    const state = await stateOf(matchId, guest);
    expect(await drawnBoard(page)).toEqual(expectedBoard(state));
    expect(await storedGuest(page)).toEqual(guest);
  });

  // A whole game by clicks, ~15 s on the 2-core machine: twice that once under a profiler.
  it('plays to the end, then shows the score of the state, the captured tokens and the final board', {
    timeout: 60_000,
  }, async () => {
    played.push(...(await playMoves(page, Number.POSITIVE_INFINITY, played.length)));
    const result = page.locator('#solo-result[data-result]');
    await result.waitFor();
    const match = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    expect(match).toMatchObject({ status: 'finished', result: { reason: 'completed' } });
    // Every move as clicked, with its colour.
    expect(match.moves.map((move: { square: string; colour: string }) => [move.square, move.colour])).toEqual(
      played.map((move) => [move.square, move.colour]),
    );
    expect(new Set(played.map((move) => move.colour))).toEqual(new Set(['black', 'white']));
    const state = await stateOf(matchId, guest);
    expect(state.status).toBe('finished');
    expect(state.score).toBe(match.result.discs.black);
    await expect(page.locator('#solo-score').textContent()).resolves.toBe(String(state.score));
    await expect(result.textContent()).resolves.toContain(`Game over: score ${state.score}.`);
    expect(await result.getAttribute('data-result')).toBe('completed');
    expect(await drawnBoard(page)).toEqual(expectedBoard(state));
    // The captured tokens, in the order they were taken, each with its value.
    const tiles = await page
      .locator('#solo-captured .tile')
      .evaluateAll((nodes) => nodes.map((node) => [node.className, node.textContent]));
    expect(tiles).toEqual(state.captured.map((token) => [`tile ${token.colour}`, String(token.value)]));
    expect(state.captured.reduce((sum, token) => sum + token.value, 0)).toBe(state.score); // points
    expect(await marked(page, 'data-legal')).toEqual([]);
    await expect(page.getByRole('button', { name: 'New game' }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'play-solo-result');
    // The end of a game fits a phone too (the phone's own game below stops after two moves).
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(page)).toEqual([]);
    await page.setViewportSize({ width: 1100, height: 900 });
    expect(problems).toEqual([]);
  });

  it("shows the game on its match page: the state's board with its tokens, the moves with their colours", async () => {
    await page.goto(`${site.origin}/matches/${matchId}`);
    const match = (await request(h.app).get(`/v1/matches/${matchId}`)).body;
    const state = (await request(h.app).get(`/v1/matches/${matchId}/state`)).body as SoloState;
    await page
      .locator('#moves tr')
      .nth(match.moves.length - 1)
      .waitFor();
    const discs = await page
      .locator('#moves tr td:nth-child(2)')
      .evaluateAll((cells) => cells.map((cell) => cell.textContent?.trim()));
    expect(discs).toEqual(match.moves.map((move: { colour: string }) => move.colour));
    const squares = await page.locator('#moves tr td:nth-child(3)').allTextContents();
    expect(squares).toEqual(match.moves.map((move: { square: string }) => move.square));
    await expect(page.locator('#score').textContent()).resolves.toContain(`Score ${state.score}`);
    await expect(page.locator('#outcome').textContent()).resolves.toContain('Reason: completed');
    // The board: each turned token with its value, as the state has it.
    const drawn = await page
      .locator('#board .cell')
      .evaluateAll((cells) =>
        cells.map((cell) => [
          cell.getAttribute('data-square'),
          cell.querySelector('.disc')?.className,
          cell.textContent,
        ]),
      );
    for (const token of state.tokens.filter((t) => !t.hidden)) {
      expect(drawn).toContainEqual([token.square, `disc token ${token.colour}`, String(token.value)]);
    }
    const blackDiscs = state.board.join('').split('B').length - 1;
    expect(drawn.filter(([, className]) => className === 'disc black')).toHaveLength(blackDiscs);
    expect(await page.locator('#play').isVisible()).toBe(false); // no replay controls
    await screenshot(page, 'match-solo');
    expect(problems).toEqual([]);
  });

  it('fits a 375 px wide phone screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 } });
    const phoneProblems = pageProblems(phone);
    await phone.goto(`${site.origin}/play`);
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    await startSolo(phone, '7', 'Tokens captured');
    expect(await awaitTurn(phone)).toBe(true);
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    await screenshot(phone, 'play-solo-375');
    expect(await playMoves(phone, 2)).toHaveLength(2);
    expect(await awaitTurn(phone)).toBe(true);
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    expect(phoneProblems).toEqual([]);
    await phone.close();
  });
});
