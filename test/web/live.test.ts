import type { Browser, Page, Request } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import type { SeenRequest } from '../support/loopback-bot.ts';
import { serve } from '../support/serve.ts';
import { arenaFor, firstLegal, lastLegal, launchBrowser, pageProblems, screenshot } from './browser.ts';

/** The per-move limit of the watched match: the clock counts down from it. */
const TIME_LIMIT_MS = 20_000;
/** Plies played before the held bot stops answering. */
const PLAYED_BEFORE_HOLD = 6;

let h: Harness;
let arena: ReturnType<typeof arenaFor>;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
let slow: RegisteredBot;
let south: RegisteredBot;

/** Lets the held bot answer again (and every later turn at once). */
let release: () => void = () => {};
/** Resolves once the held bot holds a turn. */
let holding: Promise<void>;

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness(), launchBrowser()]);
  arena = arenaFor(h);
  site = await serve(h);
  // A bot that holds its answers after a few moves, until released: its match stays running.
  let open = false;
  const held: (() => void)[] = [];
  let heldOne: () => void = () => {};
  holding = new Promise<void>((resolve) => {
    heldOne = resolve;
  });
  release = () => {
    open = true;
    for (const answer of held.splice(0)) answer();
  };
  slow = await arena.bot('watched', (seen: SeenRequest, res) => {
    const state = JSON.parse(seen.body);
    const answer = () => firstLegal(seen, res, undefined as never);
    if (open || state.history.length < PLAYED_BEFORE_HOLD) return answer();
    held.push(answer);
    heldOne();
  });
  south = await arena.bot('opponent', lastLegal);
});
afterAll(async () => {
  release();
  await browser?.close();
  await site?.close();
  await arena?.close();
  await h?.close();
});

const shownPly = (p: Page) => p.locator('#ply-range').inputValue().then(Number);
/** The seconds the clock shows, e.g. 18.4 for "18.4 s left". */
const clockSeconds = async (p: Page) => {
  const text = (await p.locator('#clock').textContent()) ?? '';
  const found = /([\d.]+) s left/.exec(text);
  return found ? Number(found[1]) : null;
};

describe('a match being played', () => {
  let id: string;
  let played: Promise<unknown>;
  let watch: Page;
  let list: Page;
  /** Each page's console errors, as they come. */
  let problems: string[][];
  /** Requests of the match page for the match document: the stream makes polling needless. */
  const matchReads: string[] = [];
  /** How many there were once the moves flowed. */
  let reads = 0;

  beforeAll(async () => {
    id = await arena.create(slow.id, south.id, { firstPlayer: 'black', timeLimitMs: TIME_LIMIT_MS });
    watch = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    list = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    problems = [pageProblems(watch), pageProblems(list)];
    watch.on('request', (req: Request) => {
      if (new URL(req.url()).pathname === `/v1/matches/${id}`) matchReads.push(req.url());
    });
  });

  it('updates its match page without a reload, from the event stream, with a clock counting down', async () => {
    // The stream's first event says where the match stands when the stream opens. Played before
    // it arrived, the match would show the page a state ahead of its own, which it reads again
    // for: one read more than the test counts (it happened under the whole suite's load).
    // A binding, not waitForFunction: the page's CSP refuses the eval that one polls with.
    let stateSeen!: () => void;
    const streamOpened = new Promise<void>((resolve) => {
      stateSeen = resolve;
    });
    await watch.exposeFunction('onFirstStreamState', () => stateSeen());
    await watch.addInitScript(`{
      const Native = window.EventSource;
      window.EventSource = class extends Native {
        constructor(...args) {
          super(...args);
          this.addEventListener('state', () => window.onFirstStreamState(), { once: true });
        }
      };
    }`);
    await watch.goto(`${site.origin}/matches/${id}`);
    await streamOpened;
    await watch.locator('#outcome', { hasText: 'Queued' }).waitFor();
    expect(matchReads).toHaveLength(1);

    played = arena.play(id);
    await holding;
    // The last plies may still be on their way to the store when the bot is asked for the next.
    const stored = async () => (await request(h.app).get(`/v1/matches/${id}`)).body.moves.length;
    await expect.poll(stored).toBe(PLAYED_BEFORE_HOLD);
    const sofar = await stored();
    await expect.poll(() => shownPly(watch), { timeout: 5000 }).toBe(sofar);
    await expect(watch.locator('#outcome').textContent()).resolves.toContain('Live');
    // The moves came over the stream: the page read the match document when it loaded, and once
    // more when the match started (for its start time), not once a move.
    expect(matchReads.length).toBeLessThanOrEqual(2);
    reads = matchReads.length;
    await expect(watch.locator('#details').textContent()).resolves.not.toMatch(/Started—/);

    // The clock of the side the arena waits for, from the arena's deadline, counting down.
    await expect.poll(() => clockSeconds(watch), { timeout: 5000 }).not.toBeNull();
    await expect(watch.locator('#clock').textContent()).resolves.toMatch(/Black \(watched\) to move/);
    const first = (await clockSeconds(watch))!;
    expect(first).toBeGreaterThan(TIME_LIMIT_MS / 1000 - 5);
    expect(first).toBeLessThanOrEqual(TIME_LIMIT_MS / 1000);
    await expect.poll(() => clockSeconds(watch), { timeout: 5000 }).toBeLessThan(first - 0.5);
    await screenshot(watch, 'match-live-clock');
  });

  it('is listed at /live with its players, ratings, ply and time left', async () => {
    await list.goto(`${site.origin}/live`);
    const row = list.locator(`#live-body tr[data-match-id="${id}"]`);
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('watched');
    expect(text).toContain('opponent');
    expect(text).toContain('(1500)');
    const cells = row.locator('td');
    const ply = (await request(h.app).get(`/v1/matches/${id}`)).body.moves.length + 1;
    await expect(cells.nth(2).textContent()).resolves.toBe(String(ply));
    await expect(cells.nth(3).textContent()).resolves.toContain('black');
    const left = async () => Number.parseFloat((await cells.nth(4).textContent()) ?? '');
    await expect.poll(left, { timeout: 5000 }).toBeGreaterThan(0);
    const before = await left();
    expect(before).toBeLessThanOrEqual(TIME_LIMIT_MS / 1000);
    await expect.poll(left, { timeout: 5000 }).toBeLessThan(before - 0.3);
    await expect(list.locator('#live-status').textContent()).resolves.toBe('1 match being played.');
    await screenshot(list, 'live');
  });

  it('finishes on its page and leaves /live once it ends, neither page reloaded', async () => {
    release();
    await played;
    const final = (await request(h.app).get(`/v1/matches/${id}`)).body;
    await watch.locator('#outcome.ok').waitFor({ timeout: 10_000 });
    expect(await shownPly(watch)).toBe(final.moves.length);
    await expect(watch.locator('#clock').isHidden()).resolves.toBe(true);
    expect(matchReads).toHaveLength(reads);

    await list
      .locator(`#live-body tr[data-match-id="${id}"]`)
      .waitFor({ state: 'detached', timeout: 10_000 });
    await list.locator('#live-empty').waitFor();
    await screenshot(list, 'live-empty');
    expect(problems.flat()).toEqual([]);
  });
});

describe('a match page whose event stream is refused', () => {
  it('falls back to reading the match through the API, and still follows the game', async () => {
    const fast = await arena.bot('fast', firstLegal);
    const other = await arena.bot('other', lastLegal);
    const id = await arena.create(fast.id, other.id);
    const page = await browser.newPage();
    const reads: string[] = [];
    page.on('request', (req: Request) => {
      if (new URL(req.url()).pathname === `/v1/matches/${id}`) reads.push(req.url());
    });
    // As a server at its cap of streams answers: the browser's EventSource gives up for good.
    await page.route(`**/v1/matches/${id}/events`, (route) =>
      route.fulfill({
        status: 429,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: 'about:blank',
          title: 'Too many requests',
          status: 429,
          code: 'streams/too-many',
        }),
      }),
    );
    await page.goto(`${site.origin}/matches/${id}`);
    await page.locator('#outcome', { hasText: 'Queued' }).waitFor();
    await arena.play(id);
    const final = (await request(h.app).get(`/v1/matches/${id}`)).body;
    await page.locator('#outcome.ok').waitFor({ timeout: 10_000 });
    expect(await shownPly(page)).toBe(final.moves.length);
    expect(reads.length).toBeGreaterThan(1);
    await page.close();
  });
});
