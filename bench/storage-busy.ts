/**
 * `npm run bench:storage -- --bots N [--matches M]`: what a busy arena keeps in Redis.
 *
 * A private redis-server, the API and one worker process with matchmaking on (as `npm start` and
 * `npm run worker` run them), and N bots on loopback (one in four a pull bot listening on its event
 * stream, the others push bots, greedy and random), all paired by matchmaking. Once every bot's
 * event stream is full (the per-bot structures have filled), memory is read (point A), and again
 * after M more matches have finished (point B). Prints, as one JSON line last:
 * - `lastingBytesPerMatch`: the growth of keys with no time to live from A to B, per match finished
 *   (the bounded per-bot keys apart);
 * - `expiringBytesPerRecentMatch`: keys with a time to live at B, per match finished in the two
 *   minutes before (the window the issue measured in); `expiringBytesPerKeptStream` the same per
 *   finished match that still has its spectator stream (those of the last MATCH_EVENTS_TTL_SECONDS);
 * - `bytesPerBot`: at B, the keys that name one bot and do not grow with its matches, per bot.
 */

import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { chooseGreedy, type RunningBot, runPullBot, startBot } from '../examples/bots/index.ts';
import { BOT_EVENTS_KEPT, storeKeys } from '../src/redis/keys.ts';
import { type ApiProcess, arenaEnv, forkApi, post, spawnWorker, stopProcesses } from './arena-processes.ts';
import { type KeyMemory, type KindMemory, keyMemory } from './key-memory.ts';
import { privateRedis } from './private-redis.ts';

const PREFIX = 'bench';
const keys = storeKeys(PREFIX);

interface Snapshot {
  readonly finished: number;
  readonly memory: KeyMemory;
}

/**
 * Kinds of key that name one bot and are bounded (its record, event stream, indexes of its running
 * matches, token and name): a cost per bot. A bounded stream trims by whole nodes, so its size
 * moves up and down by a node's worth: counted per bot, never as growth per match.
 */
const perBot = (kind: string) =>
  /^(bot:bot_\*|token:\*|bot-name:\*)/.test(kind) && !/^bot:bot_\*:(matches:finished|ratings)$/.test(kind);

/** The arena's finished matches over time, as the waits see them every half second. */
class Progress {
  readonly #samples: [at: number, finished: number][] = [];

  constructor(private readonly redis: Redis) {}

  finished(): Promise<number> {
    return this.redis.zcard(keys.matches('finished'));
  }

  /** Memory read while the arena plays on: the finished count is the mean of before and after. */
  async snapshot(): Promise<Snapshot> {
    const before = await this.finished();
    const memory = await keyMemory(this.redis, PREFIX);
    const after = await this.finished();
    return { finished: (before + after) / 2, memory };
  }

  async until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const done = await check();
      this.#samples.push([Date.now(), await this.finished()]);
      if (done) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resume) => setTimeout(resume, 500));
    }
  }

  /** Matches finished in the `ms` before the last sample (all since the start when it is shorter). */
  finishedWithin(ms: number): number {
    const [lastAt, last] = this.#samples.at(-1) ?? [0, 0];
    const before = this.#samples.filter(([at]) => at <= lastAt - ms).at(-1)?.[1] ?? 0;
    return last - before;
  }
}

const growth = (a: ReadonlyMap<string, KindMemory>, b: ReadonlyMap<string, KindMemory>) =>
  new Map([...b].map(([kind, { bytes }]) => [kind, bytes - (a.get(kind)?.bytes ?? 0)]));

export async function busyArenaStorage(options: { bots: number; matches: number }): Promise<void> {
  const redis = await privateRedis();
  const env = arenaEnv(redis.url, {
    MATCHMAKING_ENABLED: 'true',
    MATCHMAKING_INTERVAL_MS: '250',
    MATCHMAKING_MAX_NEW_MATCHES: '40',
    WORKER_THREADS: '0',
    WORKER_CONCURRENCY: '64',
  });
  const reader = new Redis(redis.url);
  const progress = new Progress(reader);
  let api: ApiProcess | undefined;
  let worker: ChildProcess | undefined;
  const pushBots: RunningBot[] = [];
  const stop = new AbortController();
  try {
    api = await forkApi(env);
    const botIds: string[] = [];
    for (let i = 0; i < options.bots; i++) {
      const name = `busy-${i}`;
      if (i % 4 === 3) {
        const bot = await post(api.base, '/v1/bots', { name });
        botIds.push(String(bot.id));
        void runPullBot({
          arena: api.base,
          token: String(bot.token),
          choose: chooseGreedy,
          signal: stop.signal,
        });
      } else {
        const push = await startBot(i % 2 === 0 ? 'greedy' : 'random', { port: 0 });
        pushBots.push(push);
        botIds.push(String((await post(api.base, '/v1/bots', { name, url: push.url })).id));
      }
    }
    worker = spawnWorker(env);
    const started = performance.now();
    // Full: each bot's stream trims itself from here on (MAXLEN ~ keeps at least that many).
    await progress.until(
      async () => {
        const lengths = await Promise.all(botIds.map((id) => reader.xlen(keys.botEvents(id))));
        return lengths.every((length) => length >= BOT_EVENTS_KEPT);
      },
      "every bot's event stream to fill",
      600_000,
    );
    const a = await progress.snapshot();
    await progress.until(
      async () => (await progress.finished()) >= a.finished + options.matches,
      `${options.matches} more matches`,
      600_000,
    );
    const b = await progress.snapshot();
    const streamBytes = await Promise.all(
      botIds.map(async (id) =>
        Number(await reader.call('MEMORY', 'USAGE', keys.botEvents(id), 'SAMPLES', '0')),
      ),
    );
    const streamsOf = (pull: boolean) => streamBytes.filter((_, i) => (i % 4 === 3) === pull);
    const mean = (values: number[]) => Math.round(values.reduce((x, y) => x + y, 0) / values.length);
    const seconds = (performance.now() - started) / 1000;
    const { cpuMs, errors } = await api.usage();

    const matches = b.finished - a.finished;
    const lastingGrowth = [...growth(a.memory.lastingByKind, b.memory.lastingByKind)].filter(
      ([kind]) => !perBot(kind),
    );
    const perMatchKinds = lastingGrowth
      .filter(([, bytes]) => Math.abs(bytes / matches) >= 1)
      .sort(([, x], [, y]) => y - x);
    const perBotKinds = [...b.memory.lastingByKind]
      .filter(([kind]) => perBot(kind))
      .sort(([, x], [, y]) => y.bytes - x.bytes);
    const keptStreams = b.memory.expiringByKind.get('match:match_*:events')?.keys ?? 0;
    const recentMatches = progress.finishedWithin(120_000);

    console.log(
      `${options.bots} bots (${botIds.length - pushBots.length} pull), ${b.finished} matches finished in ${seconds.toFixed(0)} s; ` +
        `measured over ${matches} matches`,
    );
    console.log('lasting bytes per further finished match, by key kind:');
    for (const [kind, bytes] of perMatchKinds)
      console.log(`  ${(bytes / matches).toFixed(1).padStart(8)}  ${kind}`);
    console.log(
      `expiring bytes per match finished in the last two minutes (${recentMatches}; ${keptStreams} still with a spectator stream):`,
    );
    for (const [kind, { keys: count, bytes }] of b.memory.expiringByKind) {
      console.log(
        `  ${(bytes / Math.max(recentMatches, 1)).toFixed(1).padStart(8)}  ${kind} (${count} keys)`,
      );
    }
    console.log('bytes per bot, by key kind:');
    for (const [kind, { bytes }] of perBotKinds) {
      console.log(`  ${(bytes / options.bots).toFixed(1).padStart(8)}  ${kind}`);
    }
    console.log(
      `a bot's event stream: push bots ${mean(streamsOf(false))} B (most ${Math.max(...streamsOf(false))}), ` +
        `pull bots ${mean(streamsOf(true))} B (most ${Math.max(...streamsOf(true))})`,
    );
    const botBytes = perBotKinds.reduce((sum, [, { bytes }]) => sum + bytes, 0) / options.bots;
    const lastingGrowthBytes = lastingGrowth.reduce((sum, [, bytes]) => sum + bytes, 0);
    console.log(
      JSON.stringify({
        bots: options.bots,
        matchesMeasured: matches,
        finished: b.finished,
        lastingBytesPerMatch: Math.round(lastingGrowthBytes / matches),
        expiringBytesPerRecentMatch: Math.round(b.memory.expiring / Math.max(recentMatches, 1)),
        expiringBytesPerKeptStream: Math.round(b.memory.expiring / Math.max(keptStreams, 1)),
        bytesPerBot: Math.round(botBytes),
        eventStreamBytes: { push: mean(streamsOf(false)), pull: mean(streamsOf(true)) },
        apiCpuMs: Math.round(cpuMs),
        apiErrors5xx: errors,
      }),
    );
  } finally {
    stop.abort();
    await Promise.all(pushBots.map((bot) => bot.close()));
    await stopProcesses(
      ...[worker, api?.child].filter((child): child is ChildProcess => child !== undefined),
    );
    reader.disconnect();
    redis.stop();
  }
}
