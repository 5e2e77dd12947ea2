import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import type { Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';

export { launchBrowser, SYSTEM_CHROMIUM } from '../../bench/browser.ts';

const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));

/** Saves a full-page screenshot under test-output/screenshots/ (gitignored) for a reviewer. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/**
 * Visible controls (links, buttons, form fields) that stick out of the viewport sideways and are not
 * inside a box that scrolls sideways: on a phone they would be cut off, out of reach. Empty when
 * everything fits. Each is named by the start of its HTML.
 */
export function controlsOffScreen(page: Page): Promise<string[]> {
  // A string, evaluated in the page: the tests' TypeScript has no DOM types.
  return page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const inSidewaysScroller = (node) => {
      for (let box = node.parentElement; box; box = box.parentElement) {
        const overflow = getComputedStyle(box).overflowX;
        if ((overflow === 'auto' || overflow === 'scroll') && box.scrollWidth > box.clientWidth) return true;
      }
      return false;
    };
    return [...document.querySelectorAll('a[href], button, input, select, textarea, summary')]
      .filter((node) => {
        const box = node.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1) return false; // hidden, or visually hidden
        return (box.left < -0.5 || box.right > width + 0.5) && !inSidewaysScroller(node);
      })
      .map((node) => node.outerHTML.slice(0, 80));
  })()`);
}

/**
 * Collects what would show up red in the console: uncaught errors, console errors (CSP violations
 * and failed loads among them). Tests expect it to stay empty.
 */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return problems;
}

type Behaviour = Parameters<typeof startLoopbackBot>[0];

/** Answers the first legal move. */
export const firstLegal: Behaviour = playsFirstLegal();

/** Answers the last legal move (a different game from `firstLegal`). */
export const lastLegal: Behaviour = (seen, res) => {
  const state = JSON.parse(seen.body);
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ action: state.legalMoves.at(-1) }));
};

/** Answers something that is not an action: the match ends `invalid-response`. */
export const garbage: Behaviour = (_seen, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' }).end('I resign <b>loudly</b>');
};

/**
 * Plays one legal move in each match, then answers garbage: it showed up, so its fault ends the
 * match as a loss (a fault before its first move would be an unrated no-show).
 */
export function movesOnceThenGarbage(): Behaviour {
  const moved = new Set<string>();
  return (seen, res, req) => {
    const { matchId } = JSON.parse(seen.body);
    if (moved.has(matchId)) return garbage(seen, res, req);
    moved.add(matchId);
    return firstLegal(seen, res, req);
  };
}

/**
 * Registers loopback push bots, plays matches between them with the real runner (calling them over
 * HTTP), and cleans up. `pauseAfterFaults` pauses a bot whose matches end by its faults that many
 * times in a row, as the workers do.
 */
export function arenaFor(h: Harness, options: { pauseAfterFaults?: number } = {}) {
  const servers: LoopbackBot[] = [];
  const { runner, close } = runnerFor(h, { pauseAfterFaults: options.pauseAfterFaults ?? 0 });
  const playedMatch = async (id: string) => {
    await runner.play(id, new AbortController().signal);
    return (await request(h.app).get(`/v1/matches/${id}`)).body;
  };
  return {
    async bot(name: string, behaviour: Behaviour, description?: string) {
      const server = await startLoopbackBot(behaviour);
      servers.push(server);
      return registerBot(h, { name, url: server.url, ...(description ? { description } : {}) });
    },
    /** Creates a match; it stays queued until `play`. */
    create: (black: string, white: string, rules: Record<string, unknown> = {}) =>
      createMatch(h, black, white, { rules: { timeLimitMs: 5000, overageMs: 0, ...rules } }),
    play: (matchId: string) => runner.play(matchId, new AbortController().signal),
    /** Creates and plays a match; resolves with the match document from the API. */
    async played(black: string, white: string, rules: Record<string, unknown> = {}) {
      return playedMatch(await this.create(black, white, rules));
    },
    /** Creates and plays a rated match, as the admin does, under the rated rules. */
    async playedRated(black: string, white: string) {
      return playedMatch(await createMatch(h, black, white, { rated: true }));
    },
    async close() {
      await Promise.all(servers.map((server) => server.close()));
      await close();
    },
  };
}
