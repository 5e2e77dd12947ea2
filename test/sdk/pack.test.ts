import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/bot-client/signing.ts';
import { killedAfterTest } from '../support/children.ts';
import { firstTurnState } from '../support/loopback-bot.ts';
import { freePort } from '../support/private-redis.ts';

/**
 * `npm pack -w @reversi-arena/client` as a bot author gets it: the tarball is built (tsc, by `prepare`),
 * unpacked into a project outside this repository, and used there without tsx (plain Node), by tsc
 * (its .d.ts files), and by a copy of the TypeScript push starter.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

let dir: string;
let app: string;
let files: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sdk-pack-'));
  const { stdout } = await run(
    'npm',
    ['pack', '-w', '@reversi-arena/client', '--pack-destination', dir, '--json', '--silent'],
    { cwd: ROOT },
  );
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  files = packed!.files.map((file) => file.path);
  // The project a bot author would have after `npm install <tarball>`: the package, and its own
  // dependencies (linked from this repository's node_modules rather than fetched again).
  app = join(dir, 'app');
  const installed = join(app, 'node_modules', '@reversi-arena', 'client');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', join(dir, packed!.filename), '-C', installed, '--strip-components=1']);
  await mkdir(join(app, 'node_modules', '@types'), { recursive: true });
  for (const dep of ['openapi-fetch', 'standardwebhooks', 'tsx', '@types/node']) {
    await symlink(join(ROOT, 'node_modules', dep), join(app, 'node_modules', dep));
  }
  await writeFile(join(app, 'package.json'), JSON.stringify({ type: 'module', private: true }));
}, 120_000);
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe('npm pack -w @reversi-arena/client', { timeout: 60_000 }, () => {
  it('packs the built JavaScript and its declarations, and no tests or configuration', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'src/index.ts',
      ]),
    );
    expect(files.filter((path) => /test|tsconfig|biome/.test(path))).toEqual([]);
  });

  it('is imported by plain Node, without tsx', async () => {
    const script = [
      "import * as sdk from '@reversi-arena/client';",
      'console.log(Object.keys(sdk).sort().join(" "));',
    ].join('\n');
    await writeFile(join(app, 'use.mjs'), script);
    const { stdout } = await run(process.execPath, ['use.mjs'], { cwd: app });
    expect(stdout.trim().split(' ')).toEqual(
      expect.arrayContaining([
        'BotEventStream',
        'createArenaClient',
        'createPushVerifier',
        'readEventStream',
        'verifyPushSignature',
      ]),
    );
  });

  it('type-checks a copy of the TypeScript starters against its declarations', async () => {
    await cp(join(ROOT, 'starters/typescript'), app, {
      recursive: true,
      filter: (path) => !path.endsWith('package.json'),
    });
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--types', 'node'];
    const checked = await run(
      process.execPath,
      [tsc, ...args, '--allowImportingTsExtensions', '--skipLibCheck', 'push-bot.ts', 'pull-bot.ts'],
      {
        cwd: app,
      },
    ).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(checked.stdout).toBe('');
  });

  it('runs the copied push starter, which answers a signed call', async () => {
    const port = await freePort();
    const bot = killedAfterTest(
      spawn(
        process.execPath,
        ['--import', 'tsx', 'push-bot.ts', '--port', String(port), '--secret', SECRET],
        {
          cwd: app,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    );
    await new Promise<void>((resolve, reject) => {
      let out = '';
      bot.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('listening')) resolve();
      });
      bot.once('exit', (code) => reject(new Error(`the push bot exited (${code}): ${out}`)));
    });
    const body = JSON.stringify(firstTurnState());
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signedHeaders(SECRET, 'm-1-abc', Date.now(), body) },
      body,
    });
    expect(res.status).toBe(200);
    expect(firstTurnState().legalMoves).toContain(((await res.json()) as { action: string }).action);
  });
});
