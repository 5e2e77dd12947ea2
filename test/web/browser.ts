import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import request from 'supertest';
import { registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import type { Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';

const run = promisify(execFile);

/** Debian's chromium, used when installed (`apt-get install -y chromium`) and `CHROMIUM_PATH` is unset. */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** What to install when no browser can be found or started; the one line a failing run shows. */
const INSTALL_HINT =
  'the browser tests need Chromium: run `npm ci` (for @sparticuz/chromium), apt-get install -y chromium, or set CHROMIUM_PATH';

/**
 * Flags for every browser. The test machines have no network, so nothing may phone home: no
 * background fetches, component updates, sync or QUIC probes.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Flags from @sparticuz/chromium's recommended `args` (written for AWS Lambda) that we leave out.
 * Matched as prefixes.
 */
const UNWANTED_SPARTICUZ_FLAGS = [
  // Lambda's seccomp needs it; outside Lambda it only makes Playwright's several contexts per
  // browser share one crashable process.
  '--single-process',
  // Chromium keeps only the last of each, so these would replace Playwright's own lists, which
  // switch off background fetches (OptimizationHints, NetworkTimeServiceQuerying, ...).
  '--disable-features=',
  '--enable-features=',
  // The tests check CSP violations and same-origin behaviour, which need a browser that enforces them.
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  // Playwright passes --headless itself; the bundled binary is chrome-headless-shell either way.
  '--headless',
];

/** An executable and how to start it. */
interface FoundBrowser {
  executablePath: string;
  args: string[];
  /** Extra environment for the browser process. */
  env: Record<string, string>;
}

/**
 * One headless browser per test file, launched in `beforeAll`. Uses, in order: `CHROMIUM_PATH`,
 * {@link SYSTEM_CHROMIUM}, or the Chromium that @sparticuz/chromium carries (unpacked once under
 * the temp directory, no download). Throws one line saying what to install when none works.
 */
export async function launchBrowser(): Promise<Browser> {
  const found = await findBrowser();
  return chromium.launch({
    executablePath: found.executablePath,
    args: found.args,
    ...(Object.keys(found.env).length > 0 ? { env: { ...process.env, ...found.env } } : {}),
  });
}

async function findBrowser(): Promise<FoundBrowser> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    // Set on purpose, so a typo should fail rather than quietly test another browser.
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist; ${INSTALL_HINT}`);
    return { executablePath: fromEnv, args: FLAGS, env: {} };
  }
  if (existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, args: FLAGS, env: {} };
  return bundledChromium();
}

/**
 * The Chromium inside @sparticuz/chromium, unpacked to `$TMPDIR/sparticuz-chromium-<version>/`
 * on first use (about two seconds; later runs reuse it).
 */
async function bundledChromium(): Promise<FoundBrowser> {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  } catch {
    throw new Error(`@sparticuz/chromium is not installed; ${INSTALL_HINT}`);
  }
  // The package's root is the nearest folder up from its entry whose package.json names it: the
  // entry's depth differs between versions (build/index.js, build/esm/index.js beside a package.json
  // of its own that only says "type").
  let packageRoot = dirname(entry);
  let manifest: { name?: string; version?: string } = {};
  for (; packageRoot !== dirname(packageRoot); packageRoot = dirname(packageRoot)) {
    const file = join(packageRoot, 'package.json');
    if (!existsSync(file)) continue;
    manifest = JSON.parse(readFileSync(file, 'utf8')) as typeof manifest;
    if (manifest.name === '@sparticuz/chromium') break;
  }
  const { version } = manifest;
  if (version === undefined) throw new Error(`@sparticuz/chromium has no package.json above ${entry}`);
  // Versioned, so upgrading the package unpacks the new browser instead of reusing the old one.
  const dir = join(tmpdir(), `sparticuz-chromium-${version}`);
  const executablePath = join(dir, 'chromium');
  if (!existsSync(executablePath)) await unpack(entry, packageRoot, dir);
  const env = { FONTCONFIG_FILE: join(dir, 'fonts.conf'), ...(await libraryEnv(executablePath, dir)) };

  const { default: sparticuz } = await import('@sparticuz/chromium');
  // No GPU (FLAGS say --disable-gpu): this turns its SwiftShader flags into --disable-webgl.
  sparticuz.setGraphicsMode = false;
  const recommended = sparticuz.args.filter(
    (flag) => !UNWANTED_SPARTICUZ_FLAGS.some((unwanted) => flag.startsWith(unwanted)),
  );
  return { executablePath, args: [...new Set([...FLAGS, ...recommended])], env };
}

/**
 * Unpacks the browser, its fonts and the Amazon Linux libraries into `dir`. The package's own
 * `executablePath()` writes straight into $TMPDIR and takes any file already there as finished, so
 * two vitest forks starting at once (or a run interrupted mid-unpack) would get a half-written
 * binary. Instead a child process unpacks into a fresh staging directory, which is renamed into
 * place only when complete; if another fork got there first, its copy is used.
 */
async function unpack(entry: string, packageRoot: string, dir: string): Promise<void> {
  await mkdir(dirname(dir), { recursive: true });
  const staging = await mkdtemp(`${dir}.partial-`);
  try {
    const al2023 = join(packageRoot, 'bin', 'al2023.tar.br');
    const script = [
      `const m = await import(${JSON.stringify(pathToFileURL(entry).href)});`,
      'await m.default.executablePath();',
      // Versions before 148 keep `inflate` in lambdafs beside the entry, not among its exports.
      `const lambdafs = ${JSON.stringify(pathToFileURL(join(dirname(entry), `lambdafs${extname(entry)}`)).href)};`,
      existsSync(al2023)
        ? `await (m.inflate ?? (await import(lambdafs)).inflate)(${JSON.stringify(al2023)});`
        : '',
    ].join('\n');
    // A child process, because the package reads $TMPDIR, and this one's must not change under the
    // harness being created alongside.
    await run(process.execPath, ['--input-type=module', '--eval', script], {
      env: { ...process.env, TMPDIR: staging },
      timeout: 120_000,
    });
    await writeFile(join(staging, 'fonts.conf'), fontsConf(dir));
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (existsSync(join(dir, 'chromium'))) return; // another fork finished first
    throw new Error(`could not unpack @sparticuz/chromium (${firstLine(error)}); ${INSTALL_HINT}`);
  }
  await removeAbandoned(dir);
}

/**
 * Deletes staging directories (some 200 MB each) left by runs killed mid-unpack. Only old ones: a
 * young one may belong to a fork that is unpacking right now.
 */
async function removeAbandoned(dir: string): Promise<void> {
  const prefix = `${basename(dir)}.partial-`;
  const cutoff = Date.now() - 10 * 60_000;
  for (const name of await readdir(dirname(dir))) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dirname(dir), name);
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
    if (mtimeMs < cutoff) await rm(path, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * A fontconfig file for the bundled browser: the system's fonts when there are any, plus the Open
 * Sans the package ships. A machine without fonts would otherwise lay every text out at zero size,
 * and Playwright would find no link or button visible.
 */
function fontsConf(dir: string): string {
  const xml = (path: string) => path.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${xml(join(dir, 'fonts'))}</dir>
  <cachedir>${xml(join(dir, 'fonts-cache'))}</cachedir>
</fontconfig>
`;
}

/**
 * Environment the bundled browser needs to start. It is built for Amazon Linux and links the
 * system's NSS, which a minimal image lacks; the package ships those libraries, so they are used
 * when the system's are missing (and only then, so an installed NSS stays in charge).
 */
async function libraryEnv(executablePath: string, dir: string): Promise<Record<string, string>> {
  try {
    await run(executablePath, ['--version']);
    return {};
  } catch {
    const env = {
      LD_LIBRARY_PATH: [join(dir, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
    };
    try {
      await run(executablePath, ['--version'], { env: { ...process.env, ...env } });
      return env;
    } catch (error) {
      throw new Error(`${executablePath} does not start (${firstLine(error)}); ${INSTALL_HINT}`);
    }
  }
}

/**
 * The line that says what went wrong in a failed child process or other error, for a one-line
 * message: Node prints a source excerpt before the `Error:` line of an uncaught error.
 */
function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text = typeof stderr === 'string' && stderr.trim() ? stderr : String(error);
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const line = lines.find((candidate) => /\b\w*Error\b/.test(candidate)) ?? lines[0] ?? '';
  // An uncaught error with properties prints as `[Error: message] { code: ... }`.
  return line.replace(/^\[(.*)\]\s*\{$/, '$1');
}

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
