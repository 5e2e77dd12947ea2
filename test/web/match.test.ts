import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import type { SeenRequest } from '../support/loopback-bot.ts';
import { serve } from '../support/serve.ts';
import {
  arenaFor,
  controlsOffScreen,
  firstLegal,
  garbage,
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
let north: RegisteredBot;
let south: RegisteredBot;
let finished: {
  id: string;
  moves: { ply: number; square: string; flips: string[]; player: string }[];
  result: { discs: { black: number; white: number } };
  rules: { timeLimitMs: number; overageMs: number };
};

beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness(), launchBrowser()]);
  arena = arenaFor(h);
  site = await serve(h);
  north = await arena.bot('north', firstLegal);
  south = await arena.bot('south', lastLegal);
  finished = await arena.played(north.id, south.id);
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  problems = pageProblems(page);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await arena?.close();
  await h?.close();
});

/** The board as drawn: 8 strings of B, W and '.', rank 1 first (the API's board notation). */
function drawnBoard(p: Page): Promise<string[]> {
  return p.locator('.board .cell').evaluateAll((cells) => {
    const text = cells.map((cell) => {
      const disc = cell.querySelector('.disc');
      return disc?.classList.contains('black') ? 'B' : disc?.classList.contains('white') ? 'W' : '.';
    });
    return Array.from({ length: 8 }, (_, rank) => text.slice(rank * 8, rank * 8 + 8).join(''));
  });
}

const shownPly = (p: Page) => p.locator('#ply-range').inputValue().then(Number);
const marked = (p: Page, mark: 'placed' | 'flipped') =>
  p
    .locator(`.board .cell.${mark}`)
    .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-square')));

async function discCounts(p: Page) {
  return {
    black: await p.locator('.board .disc.black').count(),
    white: await p.locator('.board .disc.white').count(),
  };
}

describe('a finished match at /matches/<id>', () => {
  it('replays to the final position, with the disc counts of the result', async () => {
    await page.goto(`${site.origin}/matches/${finished.id}`);
    await page
      .locator('#moves tr')
      .nth(finished.moves.length - 1)
      .waitFor();
    expect(await shownPly(page)).toBe(finished.moves.length);
    expect(await discCounts(page)).toEqual(finished.result.discs);
    // Square by square, the same position the arena reports for the match.
    const state = (await request(h.app).get(`/v1/matches/${finished.id}/state`)).body;
    expect(await drawnBoard(page)).toEqual(state.board);
    await expect(page.locator('#outcome').textContent()).resolves.toMatch(/wins, \d+–\d+|Draw, \d+–\d+/);
    await expect(page.locator('#outcome').textContent()).resolves.toContain('completed');
    await expect(page.locator('h1').textContent()).resolves.toBe('north vs south');
    // The time control in words, from the match's own rules.
    const { timeLimitMs, overageMs } = finished.rules;
    const inWords = (ms: number) => (ms < 1000 ? `${ms} ms` : `${ms / 1000} s`);
    await expect(page.locator('#rules').textContent()).resolves.toContain(
      overageMs > 0
        ? `${inWords(timeLimitMs)} a move + ${inWords(overageMs)} bank`
        : `${inWords(timeLimitMs)} a move, no bank`,
    );
    expect(await page.locator('.board .label.file').allTextContents()).toEqual([...'abcdefgh']);
    expect(await page.locator('.board .label.rank').allTextContents()).toEqual([...'12345678']);
    expect(problems).toEqual([]);
  });

  it('steps through the game with the arrow keys, Home and End', async () => {
    await page.locator('h1').click(); // focus on the page, not on a control
    await page.keyboard.press('Home');
    expect(await shownPly(page)).toBe(0);
    expect(await drawnBoard(page)).toEqual([
      '........',
      '........',
      '........',
      '...WB...',
      '...BW...',
      '........',
      '........',
      '........',
    ]);
    await expect(page.locator('#ply-info').textContent()).resolves.toMatch(/^Start position, white to move/);

    await page.keyboard.press('ArrowRight');
    expect(await shownPly(page)).toBe(1);
    const first = finished.moves[0]!;
    expect(first.player).toBe('white'); // the arena's rules: white moves first
    expect(await marked(page, 'placed')).toEqual([first.square]);
    expect((await marked(page, 'flipped')).sort()).toEqual([...first.flips].sort());
    expect(await discCounts(page)).toEqual({ black: 1, white: 4 });
    expect(page.url()).toMatch(/\?ply=1$/);
    await expect(page.locator('#moves tr[aria-current="step"] th').textContent()).resolves.toBe('1');

    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    expect(await shownPly(page)).toBe(2);
    expect(await marked(page, 'placed')).toEqual([finished.moves[1]!.square]);
    await screenshot(page, 'match');

    await page.keyboard.press('End');
    expect(await shownPly(page)).toBe(finished.moves.length);
    expect(await discCounts(page)).toEqual(finished.result.discs);
  });

  it('jumps to a move clicked in the move list', async () => {
    await page.locator('#moves button[data-ply="10"]').click();
    expect(await shownPly(page)).toBe(10);
    expect(await marked(page, 'placed')).toEqual([finished.moves[9]!.square]);
  });

  it('jumps to a move when its row is clicked away from the button', async () => {
    const row = page.locator('#moves tr[data-ply="14"]');
    const player = row.locator('td').first(); // the Player cell, in the middle of the row's height
    const box = (await player.boundingBox())!;
    const target = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const hit = await player.evaluate(
      (cell, [x, y]) => cell.ownerDocument.elementFromPoint(x!, y!)?.closest('button, td')?.tagName,
      [target.x, target.y],
    );
    expect(hit).toBe('TD'); // not the row's button
    await page.mouse.click(target.x, target.y);
    expect(await shownPly(page)).toBe(14);
    await expect(row.getAttribute('aria-current')).resolves.toBe('step');
    // The flips cell too.
    await page.locator('#moves tr[data-ply="15"] td').nth(2).click();
    expect(await shownPly(page)).toBe(15);
  });

  it('selects a move with the keyboard through the button in its row', async () => {
    await page.locator('#moves button[data-ply="12"]').focus();
    await page.keyboard.press('Enter');
    expect(await shownPly(page)).toBe(12);
    await page.locator('#moves button[data-ply="13"]').focus();
    await page.keyboard.press(' ');
    expect(await shownPly(page)).toBe(13);
  });

  it('plays and pauses with the space bar', async () => {
    // The page's timers on a fake clock: playback advances exactly as the clock is run.
    const timed = await browser.newPage();
    await timed.clock.install();
    await timed.goto(`${site.origin}/matches/${finished.id}?ply=0`);
    await timed
      .locator('#moves tr')
      .nth(finished.moves.length - 1)
      .waitFor();
    await timed.locator('h1').click();
    await timed.keyboard.press(' ');
    await expect(timed.locator('#play').textContent()).resolves.toBe('Pause');
    await timed.clock.runFor(3 * 600 + 100); // the normal speed: a ply every 600 ms
    expect(await shownPly(timed)).toBe(3);
    await timed.keyboard.press(' ');
    await expect(timed.locator('#play').textContent()).resolves.toBe('Play');
    await timed.clock.runFor(5000);
    expect(await shownPly(timed)).toBe(3);
    await timed.close();
  });

  describe('on a 1280×800 laptop screen', () => {
    let laptop: Page;
    beforeAll(async () => {
      laptop = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await laptop.goto(`${site.origin}/matches/${finished.id}`);
      await laptop
        .locator('#moves tr')
        .nth(finished.moves.length - 1)
        .waitFor();
    });
    afterAll(() => laptop.close());

    /** Where the current row is, against the list's visible rows (below its sticky header) and the window. */
    const currentRow = () =>
      laptop.locator('#moves-scroll').evaluate((box) => {
        const row = box.querySelector('#moves tr[aria-current="step"]')!;
        const outer = box.getBoundingClientRect();
        // A header cell, not the thead: the cells are the sticky ones, the thead scrolls away.
        const head = box.querySelector('thead th')!.getBoundingClientRect();
        const r = row.getBoundingClientRect();
        return {
          ply: Number(row.getAttribute('data-ply')),
          belowHeader: r.top >= head.bottom - 0.5,
          aboveListBottom: r.bottom <= outer.top + box.clientTop + box.clientHeight + 0.5,
          inWindow: r.top >= 0 && r.bottom <= box.ownerDocument.defaultView!.innerHeight,
        };
      });

    it('shows the board, the replay controls and the move list without scrolling', async () => {
      for (const selector of ['.board', '.controls', '#ply-range', '#moves-scroll']) {
        const box = (await laptop.locator(selector).boundingBox())!;
        expect(box.x, selector).toBeGreaterThanOrEqual(0);
        expect(box.y, selector).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, selector).toBeLessThanOrEqual(1280);
        expect(box.y + box.height, selector).toBeLessThanOrEqual(800);
      }
      expect(await laptop.evaluate('window.scrollY')).toBe(0);
      expect(await laptop.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
      // The list shows several moves, not a sliver.
      expect((await laptop.locator('#moves-scroll').boundingBox())!.height).toBeGreaterThan(300);
      await screenshot(laptop, 'match-1280');
    });

    it('keeps the current row in view, below the sticky header, while stepping', async () => {
      await laptop.locator('h1').click();
      await laptop.keyboard.press('Home');
      await laptop.keyboard.press('ArrowRight');
      expect(await currentRow()).toEqual({
        ply: 1,
        belowHeader: true,
        aboveListBottom: true,
        inWindow: true,
      });
      for (let ply = 1; ply < finished.moves.length; ply++) await laptop.keyboard.press('ArrowRight');
      expect(await currentRow()).toEqual({
        ply: finished.moves.length,
        belowHeader: true,
        aboveListBottom: true,
        inWindow: true,
      });
      // Back up past the rows above the list's top: each comes out from under the header.
      for (let i = 0; i < 30; i++) await laptop.keyboard.press('ArrowLeft');
      expect(await currentRow()).toEqual({
        ply: finished.moves.length - 30,
        belowHeader: true,
        aboveListBottom: true,
        inWindow: true,
      });
      await laptop.getByRole('button', { name: 'Last move' }).click();
      expect(await currentRow()).toMatchObject({
        ply: finished.moves.length,
        belowHeader: true,
        inWindow: true,
      });
      expect(await laptop.evaluate('window.scrollY')).toBe(0); // only the list scrolled, never the page
    });
  });

  it('fits a 375 px wide phone screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2 });
    await phone.goto(`${site.origin}/matches/${finished.id}?ply=12`);
    await phone
      .locator('#moves tr')
      .nth(finished.moves.length - 1)
      .waitFor();
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    const board = await phone.locator('.board').boundingBox();
    expect(board!.width).toBeGreaterThan(300);
    expect(board!.x + board!.width).toBeLessThanOrEqual(375);
    expect(await controlsOffScreen(phone)).toEqual([]);
    // The match id is one line: copied and read as one word, never broken mid-string.
    const id = phone.locator('code.id');
    await expect(id.textContent()).resolves.toBe(finished.id);
    // An inline box broken across lines has one client rect per line.
    expect(await id.evaluate((node) => node.getClientRects().length)).toBe(1);
    const idBox = await id.boundingBox();
    expect(idBox!.x + idBox!.width).toBeLessThanOrEqual(375);
    await screenshot(phone, 'match-375');
    await phone.close();
  });
});

describe('a match that ended by a fault', () => {
  it('shows the reason and the public fault, but not the bot answer (private to its owner)', async () => {
    const faulty = await arena.bot('faulty', movesOnceThenGarbage());
    const match = await arena.played(faulty.id, north.id, { firstPlayer: 'black' });
    await page.goto(`${site.origin}/matches/${match.id}`);
    const outcome = page.locator('#outcome');
    await outcome.locator('dl').waitFor();
    const text = await outcome.textContent();
    expect(text).toContain('north');
    expect(text).toMatch(/wins/);
    expect(text).toContain('invalid-response');
    expect(text).toContain(match.result.fault.message);
    expect(text).not.toContain('I resign');
    expect(await outcome.locator('pre').count()).toBe(0);
    await screenshot(page, 'match-fault');
  });

  it('shows a no-show: the winner, and the fault of the bot that never moved', async () => {
    const absent = await arena.bot('absent', garbage);
    const match = await arena.played(absent.id, north.id, { firstPlayer: 'black' });
    expect(match.result.reason).toBe('no-show');
    await page.goto(`${site.origin}/matches/${match.id}`);
    const outcome = page.locator('#outcome');
    await outcome.locator('dl').waitFor();
    const text = await outcome.textContent();
    expect(text).toContain('No-show');
    expect(text).toMatch(/north \(white\) wins: absent \(black\) never made a move/);
    expect(text).toContain('absent');
    expect(text).toContain('invalid-response');
    await expect(page.locator('#no-moves').isVisible()).resolves.toBe(true);
    expect(problems).toEqual([]);
  });
});

describe('a match being played', () => {
  it('updates live, and keeps the replay position of a user who stepped back', async () => {
    // A bot that holds its answers after its third move, until released: the match stays running.
    let open = false;
    const held: (() => void)[] = [];
    let heldOne: () => void = () => {};
    const firstHold = new Promise<void>((resolve) => {
      heldOne = resolve;
    });
    const gated = (seen: SeenRequest, res: Parameters<typeof firstLegal>[1]) => {
      const state = JSON.parse(seen.body);
      const answer = () => firstLegal(seen, res, undefined as never);
      if (open || state.history.length < 6) return answer();
      held.push(answer);
      heldOne();
    };
    const slow = await arena.bot('slow', gated);
    const id = await arena.create(slow.id, south.id, { firstPlayer: 'black', timeLimitMs: 20_000 });

    await page.goto(`${site.origin}/matches/${id}`);
    await page.locator('#outcome', { hasText: 'Queued' }).waitFor();
    await expect(page.locator('#ply-info').textContent()).resolves.toMatch(/^Start position, black to move/);

    const done = arena.play(id);
    await firstHold;
    // A ply is stored while the bot thinks on the next one: wait for the sixth to be.
    const movesStored = async () => (await request(h.app).get(`/v1/matches/${id}`)).body.moves.length;
    await expect.poll(movesStored, { timeout: 5000 }).toBeGreaterThanOrEqual(6);
    const sofar = await movesStored();
    // The page follows the game while the user is at the latest move.
    await expect.poll(() => shownPly(page), { timeout: 5000 }).toBe(sofar);
    await expect(page.locator('#outcome').textContent()).resolves.toContain('Live');

    await page.locator('h1').click();
    await page.keyboard.press('Home');
    open = true;
    for (const answer of held.splice(0)) answer();
    await done;
    const final = (await request(h.app).get(`/v1/matches/${id}`)).body;
    await page.locator('#outcome.ok').waitFor();
    expect(await page.locator('#ply-range').getAttribute('max')).toBe(String(final.moves.length));
    expect(await shownPly(page)).toBe(0); // kept where the user was

    await page.keyboard.press('End');
    expect(await discCounts(page)).toEqual(final.result.discs);
  });
});
