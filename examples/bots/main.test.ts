import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBot } from '../../test/support/api.ts';
import { killedAfterTest } from '../../test/support/children.ts';
import { createHarness, type Harness } from '../../test/support/harness.ts';
import { freePort } from '../../test/support/private-redis.ts';
import { serve } from '../../test/support/serve.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let arena: string;
beforeAll(async () => {
  h = await createHarness();
  site = await serve(h);
  arena = site.origin;
});
afterAll(async () => {
  await site.close();
  await h.close();
});

/** Runs `npm run bot -- <args>` (its script, as npm runs it) until it exits or prints `until`. */
function runBot(
  args: string[],
  until?: RegExp,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/bots/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A bot that never prints `until` must not play on after its test has failed.
  killedAfterTest(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (until?.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run bot -- pull-…', { timeout: 30_000 }, () => {
  it('says in one line that the arena refused a bad token, and exits with 1', async () => {
    const { code, stderr } = await runBot([
      'pull-greedy',
      '--token',
      'rvb_not-a-real-token',
      '--arena',
      arena,
    ]);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      `pull-greedy: ${arena}: the arena refused the token (401 auth/invalid-token)`,
    ]);
  });

  it('says in one line that the arena cannot be reached', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const { code, stderr } = await runBot(['pull-random', '--token', 'rvb_x', '--arena', nowhere]);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      `pull-random: cannot reach the arena at ${nowhere} (ECONNREFUSED)`,
    ]);
  });

  it('with a good token, names the bot it plays as', async () => {
    const bot = await registerBot(h, { name: 'cli-pull-bot' });
    const { stdout } = await runBot(['pull-greedy', '--token', bot.token, '--arena', arena], /playing as/);
    expect(stdout).toContain(`pull-greedy bot playing as cli-pull-bot (${bot.id}) through ${arena}`);
  });
});
