import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeysUnder } from '../../src/store/maintenance.ts';
import { REDIS_URL } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { until } from '../support/private-redis.ts';
import { exited } from '../support/worker-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const prefix = `test-${randomUUID()}`;
let demo: ChildProcess | undefined;
let bot: LoopbackBot | undefined;
afterAll(async () => {
  demo?.kill('SIGKILL');
  await bot?.close();
  const redis = new Redis(REDIS_URL);
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

/** Starts `npm run demo` (its script, as npm runs it) and resolves with the URL it prints. */
function startDemo(): Promise<string> {
  demo = spawn(process.execPath, ['--import', 'tsx', 'src/demo.ts'], {
    cwd: ROOT,
    // Only what a user would set; the demo picks the rest. A free port, and a prefix of our own.
    env: {
      PATH: process.env.PATH,
      REDIS_URL,
      PORT: '0',
      REDIS_PREFIX: prefix,
      MATCHMAKING_INTERVAL_MS: '500',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reap = () => demo?.kill('SIGKILL');
  process.once('exit', reap);
  return new Promise((resolve, reject) => {
    let output = '';
    demo!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /open (http:\/\/localhost:\d+\/)/.exec(output)?.[1];
      if (url) resolve(url);
    });
    demo!.once('exit', (code) => reject(new Error(`the demo exited with ${code}: ${output}`)));
  });
}

describe('npm run demo', { timeout: 90_000 }, () => {
  it('prints the URL to open; house bots play rated games there; loopback bots may register', async () => {
    const url = await startDemo();
    const leaderboard = async () =>
      ((await (await fetch(`${url}v1/leaderboard`)).json()) as { items: { games: number; house: boolean }[] })
        .items;
    await until(
      async () => (await leaderboard()).some((row: { games: number }) => row.games > 0),
      'a rated game on the leaderboard',
      60_000,
    );
    const rows = await leaderboard();
    expect(rows.filter((row: { house: boolean }) => row.house)).toHaveLength(4);
    expect((await fetch(url)).headers.get('content-type')).toContain('text/html');

    bot = await startLoopbackBot(playsFirstLegal());
    const registered = await fetch(`${url}v1/bots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'my-local-bot', url: bot.url }),
    });
    expect(registered.status).toBe(201);

    demo!.kill('SIGTERM');
    expect(await exited(demo!)).toBe(0);
  });
});
