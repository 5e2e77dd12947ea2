import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { bullPrefix } from '../../src/config.ts';
import { MATCH_QUEUE_NAME } from '../../src/queue/match-queue.ts';
import { storeKeys } from '../../src/redis/keys.ts';
import { deleteKeysUnder } from '../../src/redis/maintenance.ts';
import { exited, killedAfterTest } from '../support/children.ts';
import { REDIS_URL } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const prefix = `test-${randomUUID()}`;
let demo: ChildProcess | undefined;
let bot: LoopbackBot | undefined;
afterAll(async () => {
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
  killedAfterTest(demo);
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

/**
 * Resolves at the first two-player match the demo's workers finish, heard on its match queue's events (the
 * demo runs at the production rate limits: polling its API would soon be answered 429).
 */
async function firstMatchFinished(
  timeoutMs: number,
): Promise<{ wait: Promise<void>; close(): Promise<void> }> {
  const events = new QueueEvents(MATCH_QUEUE_NAME, {
    connection: { url: REDIS_URL, maxRetriesPerRequest: null },
    prefix: bullPrefix(prefix),
  });
  await events.waitUntilReady();
  let timer: NodeJS.Timeout | undefined;
  const redis = new Redis(REDIS_URL);
  const keys = storeKeys(prefix);
  const wait = new Promise<void>((resolve, reject) => {
    // A two-player match: the house bots' solo league games finish too, and count for no leaderboard.
    events.on('completed', ({ jobId }) => {
      redis.hget(keys.match(jobId), 'game').then((game) => {
        if (game !== 'solo') resolve();
      }, reject);
    });
    timer = setTimeout(
      () => reject(new Error('timed out waiting for the demo to finish a match')),
      timeoutMs,
    );
  }).finally(() => clearTimeout(timer));
  return {
    wait,
    close: async () => {
      clearTimeout(timer);
      await events.close();
      await redis.quit();
    },
  };
}

describe('npm run demo', { timeout: 90_000 }, () => {
  it('prints the URL to open; house bots play rated games there; loopback bots may register', async () => {
    const finished = await firstMatchFinished(60_000);
    onTestFinished(() => finished.close());
    const url = await startDemo();
    await finished.wait;
    const leaderboard = await fetch(`${url}v1/leaderboard`);
    expect(leaderboard.status).toBe(200);
    // Ranked or not yet (a few games in, few bots have the games a rank needs).
    type Row = { games: number; house: boolean };
    const page = (await leaderboard.json()) as { items: Row[]; unranked: Row[] };
    const rows = [...page.items, ...page.unranked];
    expect(rows.some((row) => row.games > 0)).toBe(true);
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
