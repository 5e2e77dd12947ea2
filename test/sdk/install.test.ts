import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';

/**
 * `npm install <path to the arena's sdk/>` in a bot's own project, as the client's README says: no
 * `npm pack`, no build by hand. The arena's clone is a copy of the package's sources beside this
 * repository's node_modules (a clone after `npm ci`); npm runs the package's `prepare`, which builds
 * it, and the bot imports it with plain Node and type-checks against its declarations.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

const BOT_JS = `
import { createArenaClient, describeProblem } from '@reversi-arena/client';
const arena = createArenaClient({ baseUrl: process.argv[2] });
const { data, error, response } = await arena.GET('/v1/games/{gameId}', { params: { path: { gameId: 'reversi' } } });
if (error) throw new Error(describeProblem(error, response.status));
console.log(data.id);
`;

const BOT_TS = `
import { BOT_EVENTS, type BotEvent } from '@reversi-arena/client';
export function legalMoves(event: BotEvent): string[] {
  return event.event === 'yourTurn' ? event.data.legalMoves : [];
}
export const names: readonly string[] = BOT_EVENTS;
`;

let dir: string;
let bot: string;
let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sdk-install-'));
  const sdk = join(dir, 'arena', 'sdk');
  await mkdir(sdk, { recursive: true });
  for (const file of ['package.json', 'README.md', 'tsconfig.json', 'tsconfig.build.json', 'src']) {
    await cp(join(ROOT, 'sdk', file), join(sdk, file), { recursive: true });
  }
  await symlink(join(ROOT, 'node_modules'), join(dir, 'arena', 'node_modules'));
  bot = join(dir, 'bot');
  await mkdir(bot);
  await writeFile(
    join(bot, 'package.json'),
    JSON.stringify({ name: 'my-bot', type: 'module', private: true }),
  );
  await writeFile(join(bot, 'bot.mjs'), BOT_JS);
  await writeFile(join(bot, 'bot.ts'), BOT_TS);
  await run('npm', ['install', '../arena/sdk', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: bot,
  });
  h = await createHarness();
  site = await serve(h);
}, 120_000);
afterAll(async () => {
  await site?.close();
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm install <path>/sdk', { timeout: 60_000 }, () => {
  it('builds the package on install: its JavaScript and declarations', async () => {
    const built = await readdir(join(dir, 'arena', 'sdk', 'dist'));
    expect(built).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'events.js', 'types.d.ts']));
  });

  it('is imported by plain Node, and calls the arena', async () => {
    const { stdout } = await run(process.execPath, ['bot.mjs', site.origin], { cwd: bot });
    expect(stdout.trim()).toBe('reversi');
  });

  it("type-checks a bot's code against its declarations, the stream's events typed by name", async () => {
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--skipLibCheck'];
    const checked = await run(process.execPath, [TSC, ...args, 'bot.ts'], { cwd: bot }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    expect(checked.stdout).toBe('');
  });
});
