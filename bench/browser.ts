/**
 * The headless Chromium that the browser tests (test/web/) and the page benches (bench/docs.ts)
 * drive with playwright-core: found or unpacked here, so that neither needs a browser download.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';

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
