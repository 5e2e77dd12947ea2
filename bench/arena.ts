/**
 * npm run bench:arena [-- --matches N --concurrency C --rounds R --profile FILE]
 *
 * Plays N matches between two instant loopback bots through the real queue, workers, store and bot
 * client, and prints matches per second, the arena's own time per move (p50/p99, the bot's answer
 * time excluded), and, in the same run, the raw request rate of the same bots called by the same
 * client without the arena. Each of the R rounds plays the arena, then replays its requests raw; a
 * shared machine's speed drifts from second to second, so the summary is the median round, and the
 * CPU this process spent per move and per raw request shows where the difference goes.
 * Needs Redis at REDIS_URL; works under a throwaway key prefix.
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { pino } from 'pino';
import { BotService } from '../src/arena/bots.ts';
import { BotClient } from '../src/bot-client/index.ts';
import { loadConfig } from '../src/config.ts';
import { createRedis } from '../src/connections/redis-connection.ts';
import type { BotState } from '../src/contract/index.ts';
import { gameFor } from '../src/game/index.ts';
import { eloRule } from '../src/model/rating-rule.ts';
import { replay } from '../src/model/replay.ts';
import { botState } from '../src/protocol/state.ts';
import { BullMatchQueue } from '../src/queue/match-queue.ts';
import { deleteKeysUnder } from '../src/redis/maintenance.ts';
import { redisStores } from '../src/redis/redis-stores.ts';
import type { Player } from '../src/runner/player.ts';
import { playersFor } from '../src/runner/players.ts';
import { MatchRunner } from '../src/runner/runner.ts';
import { systemClock } from '../src/support/clock.ts';
import { secureRandomBytes } from '../src/support/random.ts';
import { benchMatchService, benchWorker } from './bench-worker.ts';

const { values } = parseArgs({
  options: {
    matches: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '7' },
    /** Writes a CPU profile of this process over the last round's arena phase to this file. */
    profile: { type: 'string' },
  },
});
const matchCount = Number(values.matches);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const prefix = `bench-${randomUUID()}`;
const config = loadConfig({
  ...process.env,
  REDIS_PREFIX: prefix,
  ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
  LOG_LEVEL: 'warn',
});
const logger = pino({ level: 'warn' });

/** Starts the two instant bots in a child process and returns their URLs. */
async function instantBots(): Promise<{ urls: [string, string]; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./instant-bots.ts', import.meta.url))],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
  return { urls: JSON.parse(line) as [string, string], stop: () => child.kill() };
}

/** Profiles this process's CPU until `stopInto` writes the profile (open it in Chrome DevTools). */
async function startProfiler(): Promise<{ stopInto: (file: string) => Promise<void> }> {
  const session = new Session();
  session.connect();
  const post = promisify(session.post.bind(session)) as (method: string) => Promise<unknown>;
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    stopInto: async (file) => {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** Microseconds of CPU (user and system) this process used since `start`. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return user + system;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function main(): Promise<void> {
  const redis = createRedis(config.redis.url, 'worker');
  const workerRedis = createRedis(config.redis.url, 'worker');
  await Promise.all([redis.connect(), workerRedis.connect()]);
  const stores = redisStores(redis, prefix);
  const queue = new BullMatchQueue(workerRedis, prefix);
  const instant = await instantBots();
  const [urlA, urlB] = instant.urls;
  const bots = new BotService({
    stores,
    clock: systemClock,
    random: secureRandomBytes,
    startingRating: 1500,
    allowPrivateBotUrls: true,
  });
  const a = await bots.register({ name: 'bench-a', url: urlA });
  const b = await bots.register({ name: 'bench-b', url: urlB });

  const client = new BotClient({ allowPrivateAddresses: true });
  const overheads: number[] = [];
  const noPull = (): Player => {
    throw new Error('no pull bots in the benchmark');
  };
  const runner = new MatchRunner({
    stores,
    clock: systemClock,
    playerFor: playersFor(client, noPull),
    rate: eloRule(config.rating),
    logger,
    onMoveTimed: ({ overheadMs }) => overheads.push(overheadMs),
  });
  const matches = benchMatchService(stores, queue, config);

  const worker = await benchWorker({
    connection: workerRedis,
    prefix,
    concurrency,
    runner,
    stores,
    queue,
    logger,
  });
  let completed = 0;
  let onCompleted = () => {};
  worker.worker.on('completed', () => {
    completed++;
    onCompleted();
  });

  /** Plays `matchCount` queued matches through the worker; the clock runs from the queue's resume. */
  async function arenaRound(): Promise<{
    seconds: number;
    cpuUs: number;
    ids: string[];
    overheads: number[];
  }> {
    await queue.queue.pause();
    const ids: string[] = [];
    for (let i = 0; i < matchCount; i++) {
      const [black, white] = i % 2 === 0 ? [a, b] : [b, a];
      ids.push(
        (await matches.create({ kind: 'admin' }, { black: black.bot.id, white: white.bot.id, rated: true }))
          .id,
      );
    }
    overheads.length = 0;
    const target = completed + matchCount;
    const done = new Promise<void>((resolve) => {
      onCompleted = () => completed === target && resolve();
    });
    const started = performance.now();
    const cpu = process.cpuUsage();
    await queue.queue.resume();
    await done;
    return {
      seconds: (performance.now() - started) / 1000,
      cpuUs: cpuSince(cpu),
      ids,
      overheads: [...overheads],
    };
  }

  const byId = new Map([
    [a.bot.id, { url: urlA, secret: a.bot.webhookSecret }],
    [b.bot.id, { url: urlB, secret: b.bot.webhookSecret }],
  ]);
  /**
   * The same requests without the arena: every state of the round's matches, rebuilt from their
   * records before the clock starts, sent to the bot whose turn it was, by the same client with the
   * same concurrency. Returns requests per second.
   */
  async function rawRound(ids: readonly string[]): Promise<{ rate: number; cpuUsPerRequest: number }> {
    const requests: { url: string; secret: string | null; state: BotState }[] = [];
    for (const id of ids) {
      const match = (await stores.matches.getMatch(id))!;
      const recorded = await stores.matches.getMoves(id);
      const rules = gameFor(match.game);
      for (let ply = 0; ply < recorded.length; ply++) {
        if (recorded[ply]!.square === 'pass') continue;
        const played = recorded.slice(0, ply);
        const game = replay(match.rules, played, rules);
        const toMove = rules.toMove(game.position);
        const target = byId.get(toMove === 'black' ? match.black.id : match.white.id)!;
        const state = botState({
          match,
          moves: played,
          position: game.position,
          timeLimitMs: match.rules.timeLimitMs,
          remainingOverageMs: game.banks[toMove],
          lastLatencyMs: game.lastLatency[toMove],
          opponentRating: 1500,
        });
        requests.push({ url: target.url, secret: target.secret, state });
      }
    }
    const started = performance.now();
    const cpu = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < requests.length; i = next++) {
          const { url, secret, state } = requests[i]!;
          const outcome = await client.callBot({ url, webhookSecret: secret, state, timeoutMs: 5000 });
          if (!outcome.ok) throw new Error(outcome.fault.message);
        }
      }),
    );
    return {
      rate: requests.length / ((performance.now() - started) / 1000),
      cpuUsPerRequest: cpuSince(cpu) / requests.length,
    };
  }

  // Rounds alternate the arena and the raw run, so both see the same state of a shared machine;
  // the summary is the median round. Round 0 warms up (JIT, connection pools) and is not counted.
  const results: {
    matchRate: number;
    moveRate: number;
    rawRate: number;
    ratio: number;
    arenaCpu: number;
    rawCpu: number;
  }[] = [];
  const allOverheads: number[] = [];
  console.log(`${rounds} rounds of ${matchCount} matches, ${concurrency} at a time`);
  for (let round = 0; round <= rounds; round++) {
    const profiler = values.profile && round === rounds ? await startProfiler() : undefined;
    const arena = await arenaRound();
    await profiler?.stopInto(values.profile!);
    const raw = await rawRound(arena.ids);
    if (round === 0) continue;
    const moveRate = arena.overheads.length / arena.seconds;
    allOverheads.push(...arena.overheads);
    const result = {
      matchRate: matchCount / arena.seconds,
      moveRate,
      rawRate: raw.rate,
      ratio: moveRate / raw.rate,
      arenaCpu: arena.cpuUs / arena.overheads.length,
      rawCpu: raw.cpuUsPerRequest,
    };
    results.push(result);
    console.log(
      `round ${round}: ${result.matchRate.toFixed(1)} matches/s, ${moveRate.toFixed(0)} moves/s, ${result.arenaCpu.toFixed(0)} µs CPU/move; raw ${raw.rate.toFixed(0)} requests/s, ${raw.cpuUsPerRequest.toFixed(0)} µs CPU/request; arena/raw ${(100 * result.ratio).toFixed(1)}%`,
    );
  }
  await worker.close(1000);

  const median = (pick: (r: (typeof results)[number]) => number) => {
    const sorted = results.map(pick).sort((x, y) => x - y);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  const sorted = allOverheads.sort((x, y) => x - y);
  console.log(`medians over ${rounds} rounds:`);
  console.log(`  matches per second: ${median((r) => r.matchRate).toFixed(1)}`);
  console.log(`  arena moves per second: ${median((r) => r.moveRate).toFixed(0)}`);
  console.log(
    `  raw bot requests per second (same bots, same client, no arena): ${median((r) => r.rawRate).toFixed(0)}`,
  );
  console.log(`  arena rate / raw rate: ${(100 * median((r) => r.ratio)).toFixed(1)}%`);
  console.log(
    `  this process's CPU: ${median((r) => r.arenaCpu).toFixed(0)} µs per arena move, ${median((r) => r.rawCpu).toFixed(0)} µs per raw request`,
  );
  console.log(
    `arena overhead per move (bot time excluded), all counted rounds: p50 ${quantile(sorted, 0.5).toFixed(3)} ms, p99 ${quantile(sorted, 0.99).toFixed(3)} ms`,
  );

  await client.close();
  instant.stop();
  await queue.queue.obliterate({ force: true });
  await queue.close();
  await stores.close();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  await workerRedis.quit();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
