import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chooser, runPullBot } from '../../examples/bots/index.ts';
import { storeKeys } from '../../src/redis/keys.ts';
import { deleteKeysUnder } from '../../src/redis/maintenance.ts';
import { startApiProcess } from '../support/api-process.ts';
import { REDIS_URL } from '../support/harness.ts';
import { until } from '../support/private-redis.ts';
import { specSchema } from '../support/spec-schema.ts';
import { openSse } from '../support/sse.ts';
import { exited } from '../support/worker-process.ts';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const SHUTDOWN_GRACE_MS = 3000;
const prefix = `test-${randomUUID()}`;
const redis = new Redis(REDIS_URL);
let api: ChildProcess | undefined;

afterEach(() => {
  api?.kill('SIGKILL');
});
afterAll(async () => {
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

/** Starts `npm start` alone (no workers, so no match holds the shutdown) and resolves with its URL. */
async function startApi(): Promise<string> {
  const started = await startApiProcess({
    REDIS_URL,
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN,
    WORKERS_IN_PROCESS: 'false',
    MATCHMAKING_ENABLED: 'false',
    HOUSE_BOTS: 'false',
    SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
    LOG_LEVEL: 'info',
  });
  api = started.child;
  return started.url;
}

async function post(url: string, body: unknown, token?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; token: string };
}

/** Event streams and long polls a bot holds (one lease each), read where the API keeps them. */
const leases = (botId: string) => redis.zcard(storeKeys(prefix).botStreams(botId));

describe('the API told to stop (SIGTERM) while pull bots are connected', { timeout: 60_000 }, () => {
  it('tells each event stream it is closing, answers each long poll, and exits 0 within the grace period', async () => {
    const base = await startApi();
    const black = await post(`${base}/v1/bots`, { name: 'closing-black' });
    const white = await post(`${base}/v1/bots`, { name: 'closing-white' });
    // No worker runs it: the match stays queued, so neither bot's long poll has a turn to wake it.
    const match = await post(`${base}/v1/matches`, { black: black.id, white: white.id }, ADMIN_TOKEN);

    // Black is the example pull bot; white listens by hand and long-polls its match.
    const stopBot = new AbortController();
    const botEvents: string[] = [];
    let connected = () => {};
    const listening = new Promise<void>((resolve) => (connected = resolve));
    const bot = runPullBot({
      arena: base,
      token: black.token,
      choose: chooser('random'),
      signal: stopBot.signal,
      onEvent: (event) => {
        botEvents.push(event);
        if (event === 'connected') connected();
      },
    });
    const stream = await openSse(`${base}/v1/bots/me/events`, { authorization: `Bearer ${white.token}` });
    const poll = fetch(`${base}/v1/matches/${match.id}/state?waitMs=30000`, {
      headers: { authorization: `Bearer ${white.token}` },
    });
    // Its stream's lease is taken before the stream opens.
    await listening;
    expect(await leases(black.id)).toBe(1);
    await until(async () => (await leases(white.id)) === 2, "white's stream and long poll");

    const stopped = performance.now();
    api!.kill('SIGTERM');

    const closing = await stream.next();
    expect(closing.event).toBe('arenaClosing');
    expect(closing.id).toBeUndefined();
    expect(specSchema('ArenaClosingEvent')(JSON.parse(closing.data))).toEqual([]);
    await expect(stream.next()).rejects.toThrow('event stream ended');

    const answer = await poll;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ matchId: match.id, status: 'queued', you: 'white' });

    expect(await exited(api!)).toBe(0);
    // Nothing waited for the grace period: not the streams, the long poll, nor an idle connection.
    expect(performance.now() - stopped).toBeLessThan(SHUTDOWN_GRACE_MS);
    // The example bot heard the news as such: it waits to reconnect, it did not see an error.
    expect(botEvents).toContain('arenaClosing');
    expect(botEvents).not.toContain('disconnected');
    stopBot.abort();
    await bot;
  });
});
