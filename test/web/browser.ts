import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import request from 'supertest';
import { registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import type { Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';

/** Debian's chromium; CI installs it when missing (`apt-get install -y chromium`). */
export const CHROMIUM = '/usr/bin/chromium';

/** One headless browser per test file, launched in `beforeAll`. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The harness' app on a loopback port, for the browser. */
export async function serve(h: Harness): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = h.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));

/** Saves a full-page screenshot under test-output/screenshots/ (gitignored) for a reviewer. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
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
 * Registers loopback push bots, plays matches between them with the real runner (calling them over
 * HTTP), and cleans up. `pauseAfterFaults` pauses a bot whose matches end by its faults that many
 * times in a row, as the workers do.
 */
export function arenaFor(h: Harness, options: { pauseAfterFaults?: number } = {}) {
  const servers: LoopbackBot[] = [];
  const { runner, close } = runnerFor(h, { pauseAfterFaults: options.pauseAfterFaults ?? 0 });
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
      const id = await this.create(black, white, rules);
      await this.play(id);
      return (await request(h.app).get(`/v1/matches/${id}`)).body;
    },
    async close() {
      await Promise.all(servers.map((server) => server.close()));
      await close();
    },
  };
}
