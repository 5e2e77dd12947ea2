/**
 * npm run bench:concurrency [-- --bot-latency-ms 200 --concurrency 1000 --seconds 20 --threads N --turn-slice-ms N --young-generation-mb N --openings balanced|standard --nice N]
 *
 * One worker process, as `npm run worker` builds it (startWorkers: WORKER_THREADS pool threads, by
 * default one per core it may use, or with `--threads 0` the process' own thread), plays `concurrency` matches
 * at once against two bots that each answer after `bot-latency-ms` (in a child process), through
 * the real queue, runner, store and bot client, on a private redis-server. Over a measuring window
 * it prints the move rate against the ideal (each match makes 1000 / latency moves a second), the
 * Redis connections the worker holds, and the event-loop delay (p99, max) of the loops that play
 * the matches (as prom-client reads it, each sample the whole 10 ms interval between two timers,
 * and the p99 less that interval: how late a timer ran): the worst thread's (each thread's is listed too, with the share of the window it
 * waited for a CPU while runnable, on Linux), and what the worker charged the bots beyond the latency
 * they kept (`chargedOverheadMs`: each move's recorded latency less `bot-latency-ms`, p50/p99/max,
 * what a bot sees of the worker's delays); one JSON line last.
 *
 * The bots and Redis stand for other machines but share this one's cores. `--nice N` runs both at
 * that lower CPU priority, so that they take what the worker leaves, as on machines of their own.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { BotService } from '../src/arena/bots.ts';
import { loadConfig } from '../src/config.ts';
import { createRedis } from '../src/connections/redis-connection.ts';
import { startMatchPool } from '../src/pool/match-pool.ts';
import { LOOP_SAMPLE_MS, type PoolThreads, startPoolThreads } from '../src/pool/pool-threads.ts';
import { BullMatchQueue } from '../src/queue/match-queue.ts';
import { redisStores } from '../src/redis/redis-stores.ts';
import { openings } from '../src/reversi/index.ts';
import { systemClock } from '../src/support/clock.ts';
import { secureRandomBytes } from '../src/support/random.ts';
import { benchRedis, clientLines } from './bench-redis.ts';
import { benchMatchService } from './bench-worker.ts';
import { percentile } from './percentile.ts';
import { niced } from './private-redis.ts';

const { values } = parseArgs({
  options: {
    'bot-latency-ms': { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '20' },
    threads: { type: 'string' },
    openings: { type: 'string', default: 'balanced' },
    'turn-slice-ms': { type: 'string' },
    'young-generation-mb': { type: 'string' },
    nice: { type: 'string' },
  },
});
/** The flags that set a worker setting as its environment variable would, when given. */
const WORKER_SETTING_FLAGS = {
  threads: 'WORKER_THREADS',
  'turn-slice-ms': 'WORKER_TURN_SLICE_MS',
  'young-generation-mb': 'WORKER_THREAD_YOUNG_GENERATION_MB',
} as const;
const latencyMs = Number(values['bot-latency-ms']);
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
const nice = values.nice === undefined ? undefined : Number(values.nice);
if (nice !== undefined && !(Number.isInteger(nice) && nice >= -20 && nice <= 19)) {
  console.error(`--nice must be an integer from -20 to 19, not ${values.nice}`);
  process.exit(2);
}
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function slowBots(): Promise<{ urls: [string, string]; stop: () => void }> {
  const bots = fileURLToPath(new URL('./instant-bots.ts', import.meta.url));
  const child = spawn(...niced(nice, process.execPath, ['--import', 'tsx', bots]), {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, BOT_LATENCY_MS: String(latencyMs) },
  });
  const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
  return { urls: JSON.parse(line) as [string, string], stop: () => child.kill() };
}

async function main(): Promise<void> {
  const redisServer = await benchRedis({ nice, prefix: 'bench' });
  const config = loadConfig({
    ...redisServer.env,
    REDIS_PREFIX: 'bench',
    ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
    MATCHMAKING_ENABLED: 'false',
    HOUSE_BOTS: 'false',
    WORKER_CONCURRENCY: String(concurrency),
    ...Object.fromEntries(
      Object.entries(WORKER_SETTING_FLAGS).flatMap(([flag, name]) => {
        const value = values[flag as keyof typeof WORKER_SETTING_FLAGS];
        return value === undefined ? [] : [[name, value]];
      }),
    ),
    SHUTDOWN_GRACE_MS: '0',
    LOG_LEVEL: 'warn',
  });
  const { prefix } = config.redis;
  const redis = createRedis(config.redis.target, 'worker', { connectionName: 'bench' });
  const queueRedis = createRedis(config.redis.target, 'worker', { connectionName: 'bench' });
  await Promise.all([redis.connect(), queueRedis.connect()]);
  const stores = redisStores(redis, prefix);
  const queue = new BullMatchQueue(queueRedis, prefix);
  const bots = await slowBots();
  const botService = new BotService({
    stores,
    clock: systemClock,
    random: secureRandomBytes,
    startingRating: 1500,
    allowPrivateBotUrls: true,
  });
  const a = await botService.register({ name: 'slow-a', url: bots.urls[0] });
  const b = await botService.register({ name: 'slow-b', url: bots.urls[1] });
  const matches = benchMatchService(stores, queue, config);
  // Twice the concurrency, so that the worker has a match to start whenever one ends. Each from a
  // balanced opening, as rated matchmaking plays them: the same game from the start every time
  // would end every match at once, a game's length after they all began, and start as many again.
  const balanced = openings();
  const ids: string[] = [];
  const openingPlies = new Map<string, number>();
  for (let i = 0; i < concurrency * 2; i++) {
    const opening = values.openings === 'balanced' ? balanced[i % balanced.length] : undefined;
    const match = await matches.create(
      { kind: 'admin' },
      {
        black: a.bot.id,
        white: b.bot.id,
        rules: { timeLimitMs: 5000, ...(opening ? { opening: opening.id } : {}) },
        rated: false,
      },
    );
    ids.push(match.id);
    openingPlies.set(match.id, opening?.moves.length ?? 0);
  }

  const logger = pino({ level: 'warn' });
  const threaded = config.workers.threads > 0;
  const workers = threaded ? await startPoolThreads(config, logger) : await startMatchPool(config, logger);
  // Each match's move count. The bots' moves are those past the opening, whose plies the arena
  // plays itself, at once, when a match starts.
  const moveCounts = async () =>
    new Map(
      (await Promise.all(ids.map((id) => stores.matches.getMatch(id)))).map((match) => [
        match?.id ?? '',
        match?.moveCount ?? 0,
      ]),
    );
  const botMoves = (counts: ReadonlyMap<string, number>) =>
    ids.reduce((sum, id) => sum + Math.max(0, (counts.get(id) ?? 0) - (openingPlies.get(id) ?? 0)), 0);
  /**
   * What the worker charged the bots over the latency they kept, for every bot move made between
   * two counts: the delay a bot's answer met before the worker's timer stopped (the worker's loop,
   * the bots' own loop and the loopback between them), as a bot's clock sees it.
   */
  const chargedOverheads = async (
    before: ReadonlyMap<string, number>,
    after: ReadonlyMap<string, number>,
  ) => {
    const overheads: number[] = [];
    for (const id of ids) {
      const from = before.get(id) ?? 0;
      if ((after.get(id) ?? 0) <= from) continue;
      for (const move of (await stores.matches.getMoves(id)).slice(from, after.get(id)))
        if (!move.opening && move.square !== 'pass') overheads.push(move.latencyMs - latencyMs);
    }
    return overheads.sort((x, y) => x - y);
  };
  const warmUpMs = Math.max(3000, latencyMs * 10);
  await sleep(warmUpMs);
  // As prom-client's lag metrics read it: every 10 ms, and counting the whole interval between
  // samples, so an idle loop reads about 10 ms (see LOOP_SAMPLE_MS).
  const loop = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  const countsBefore = await moveCounts();
  const startMoves = botMoves(countsBefore);
  const started = performance.now();
  loop.enable();
  if (threaded) await (workers as PoolThreads).loopDelays(); // starts each thread's window afresh
  const cpuBefore = process.cpuUsage();
  await sleep(seconds * 1000);
  const cpu = process.cpuUsage(cpuBefore);
  loop.disable();
  const threadDelays = threaded ? await (workers as PoolThreads).loopDelays() : [];
  const elapsedS = (performance.now() - started) / 1000;
  const countsAfter = await moveCounts();
  const moves = botMoves(countsAfter) - startMoves;
  const overheads = await chargedOverheads(countsBefore, countsAfter);
  const clients = (await clientLines(redis)).filter((line) => !/ name=bench(-admin)? /.test(line));

  const ms = (nanoseconds: number) => Math.round((nanoseconds / 1e6) * 10) / 10;
  const round = (value: number) => Math.round(value * 10) / 10;
  // The loops that play the matches: the threads', or this one's when they play here.
  const delays = threaded
    ? threadDelays.map((thread) => ({
        p99Ms: round(thread.p99Ms),
        maxMs: round(thread.maxMs),
        cpuWaitShare: thread.cpuWaitShare === null ? null : Math.round(thread.cpuWaitShare * 100) / 100,
      }))
    : [{ p99Ms: ms(loop.percentile(99)), maxMs: ms(loop.max), cpuWaitShare: null }];
  const moveRate = moves / elapsedS;
  const idealRate = concurrency * (1000 / latencyMs);
  const summary = {
    concurrency,
    botLatencyMs: latencyMs,
    seconds: Math.round(elapsedS * 10) / 10,
    moveRate: Math.round(moveRate),
    idealMoveRate: Math.round(idealRate),
    ofIdeal: Math.round((moveRate / idealRate) * 1000) / 1000,
    workerRedisConnections: clients.length,
    threads: config.workers.threads,
    openings: values.openings,
    turnSliceMs: config.workers.turnSliceMs,
    youngGenerationMb: config.workers.threadYoungGenerationMb,
    botsAndRedisNice: nice ?? 0,
    // The whole process (every thread, GC included) per move: what the worker spends on a move.
    cpuMicrosPerMove: Math.round((cpu.user + cpu.system) / moves),
    systemCpuShare: Math.round((cpu.system / (cpu.user + cpu.system)) * 100) / 100,
    processCpuCores: Math.round(((cpu.user + cpu.system) / 1e6 / elapsedS) * 100) / 100,
    eventLoopDelayP99Ms: Math.max(...delays.map((d) => d.p99Ms)),
    eventLoopDelayMaxMs: Math.max(...delays.map((d) => d.maxMs)),
    // The same p99 less the sampling interval: how late the loop ran a timer past its time, what a
    // bot's answer waits (an idle loop reads 0 here, about 10 ms above).
    eventLoopLagP99Ms: round(Math.max(0, Math.max(...delays.map((d) => d.p99Ms)) - LOOP_SAMPLE_MS)),
    threadLoopDelays: threaded ? delays : undefined,
    processThreadLoopDelayP99Ms: ms(loop.percentile(99)),
    chargedOverheadMs: {
      p50: percentile(overheads, 50),
      p99: percentile(overheads, 99),
      max: percentile(overheads, 100),
    },
    load: (await import('node:os')).loadavg().map((l) => Math.round(l * 10) / 10),
  };
  // Issue 13's target 2. The delay judged is the lag (the reading less its sampling interval), as
  // APM agents report event-loop delay (Elastic's subtracts the resolution): the raw reading never
  // falls below the interval, so "under 20 ms" on it would ask for under 10 ms of delay.
  const targets = {
    ofIdeal: { atLeast: 0.8, pass: summary.ofIdeal >= 0.8 },
    workerRedisConnections: { atMost: 10, pass: summary.workerRedisConnections <= 10 },
    eventLoopLagP99Ms: { under: 20, pass: summary.eventLoopLagP99Ms < 20 },
  };
  const pass = Object.values(targets).every((target) => target.pass);
  const waits = delays.flatMap((d) => (d.cpuWaitShare === null ? [] : [d.cpuWaitShare]));
  console.log(
    `${summary.moveRate} moves/s of an ideal ${summary.idealMoveRate} (${(summary.ofIdeal * 100).toFixed(1)}%), ` +
      `${summary.workerRedisConnections} Redis connections, ${summary.threads} threads, ${summary.cpuMicrosPerMove} µs CPU per move, event-loop delay p99 ${summary.eventLoopDelayP99Ms} ms as prom-client reads it (${summary.eventLoopLagP99Ms} ms past schedule; max ${summary.eventLoopDelayMaxMs} ms), charged beyond the bots' latency p99 ${summary.chargedOverheadMs.p99} ms` +
      (waits.length > 0
        ? `, threads waited for a CPU ${waits.map((w) => `${Math.round(w * 100)}%`).join(', ')} of the time`
        : ''),
  );
  console.log(JSON.stringify({ ...summary, targets, pass }));
  await workers.close();
  bots.stop();
  await queue.close();
  redis.disconnect();
  queueRedis.disconnect();
  await redisServer.stop();
  process.exit(0);
}

await main();
