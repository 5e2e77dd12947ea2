/**
 * npm run bench:arena [-- --matches N --concurrency C --rounds R --profile FILE]
 *
 * Plays N matches between two instant loopback bots through the real queue, workers, store and bot
 * client, and prints matches per second, the arena's own time per move (p50/p99, the bot's answer
 * time excluded), and, in the same run, the raw request rate of the same bots called by the same
 * client without the arena. Each of the R rounds plays the arena, then replays its requests raw; a
 * shared machine's speed drifts from second to second, so the summary is the median round, and the
 * CPU each process (this one, the bots', Redis) spent per move and per raw request shows where the
 * difference goes (each run is bound by the one thread that drives it: see `ratioFromCpu`).
 * The last line is the summary as JSON.
 * Needs Redis at REDIS_URL; works under a throwaway key prefix.
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { pino } from 'pino';
import { BotService } from '../src/arena/bots.ts';
import { BotClient } from '../src/bot-client/index.ts';
import { loadConfig } from '../src/config.ts';
import { createRedis, type RedisClient } from '../src/connections/redis-connection.ts';
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
import { processCpuMicros, redisCpuMicros } from './process-cpu.ts';

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
async function instantBots(): Promise<{ urls: [string, string]; pid: number | undefined; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./instant-bots.ts', import.meta.url))],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
  return { urls: JSON.parse(line) as [string, string], pid: child.pid, stop: () => child.kill() };
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

/** The CPU every process of a phase used: this one, the bots' and Redis' (µs), and the wall time (s). */
interface PhaseCost {
  readonly seconds: number;
  readonly cpuUs: number;
  readonly botsCpuUs: number;
  readonly redisCpuUs: number;
}

/** Measures `phase`: its wall time and the CPU this process, the bots' process and Redis spent in it. */
async function measured<T>(
  redis: RedisClient,
  botsPid: number | undefined,
  phase: () => Promise<T>,
): Promise<PhaseCost & { value: T }> {
  const [bots, server] = [processCpuMicros(botsPid), await redisCpuMicros(redis)];
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await phase();
  const seconds = (performance.now() - started) / 1000;
  const cpuUs = cpuSince(cpu);
  return {
    value,
    seconds,
    cpuUs,
    botsCpuUs: processCpuMicros(botsPid) - bots,
    redisCpuUs: (await redisCpuMicros(redis)) - server,
  };
}

/** CPU per move (or per request), in µs: this process, the bots' process, Redis. */
interface CpuPerItem {
  readonly self: number;
  readonly bots: number;
  readonly redis: number;
}

interface RoundResult {
  readonly matchRate: number;
  readonly moveRate: number;
  readonly rawRate: number;
  readonly ratio: number;
  readonly arenaCpu: CpuPerItem;
  readonly rawCpu: CpuPerItem;
  /** The cores every process kept busy, on average over the phase. */
  readonly arenaBusy: number;
  readonly rawBusy: number;
}

const cores = availableParallelism();

function perItem(cost: PhaseCost, items: number): CpuPerItem {
  return { self: cost.cpuUs / items, bots: cost.botsCpuUs / items, redis: cost.redisCpuUs / items };
}

function busy(cost: PhaseCost): number {
  return (cost.cpuUs + cost.botsCpuUs + cost.redisCpuUs) / 1e6 / cost.seconds;
}

function roundResult(arena: PhaseCost, moves: number, raw: PhaseCost, requests: number): RoundResult {
  const moveRate = moves / arena.seconds;
  const rawRate = requests / raw.seconds;
  return {
    matchRate: matchCount / arena.seconds,
    moveRate,
    rawRate,
    ratio: moveRate / rawRate,
    arenaCpu: perItem(arena, moves),
    rawCpu: perItem(raw, requests),
    arenaBusy: busy(arena),
    rawBusy: busy(raw),
  };
}

function costLine({ self, bots, redis }: CpuPerItem): string {
  return `this process ${self.toFixed(0)}, bots ${bots.toFixed(0)}, Redis ${redis.toFixed(0)}`;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const mapValues = <T extends object>(object: T, f: (x: number) => number) =>
  Object.fromEntries(Object.entries(object).map(([k, v]) => [k, f(v as number)]));

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
  async function arenaRound(): Promise<PhaseCost & { ids: string[]; overheads: number[] }> {
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
    const cost = await measured(redis, instant.pid, async () => {
      await queue.queue.resume();
      await done;
    });
    return { ...cost, ids, overheads: [...overheads] };
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
  async function rawRound(ids: readonly string[]): Promise<PhaseCost & { requests: number }> {
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
    let next = 0;
    const cost = await measured(redis, instant.pid, () =>
      Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let i = next++; i < requests.length; i = next++) {
            const { url, secret, state } = requests[i]!;
            const outcome = await client.callBot({ url, webhookSecret: secret, state, timeoutMs: 5000 });
            if (!outcome.ok) throw new Error(outcome.fault.message);
          }
        }),
      ),
    );
    return { ...cost, requests: requests.length };
  }

  // Rounds alternate the arena and the raw run, so both see the same state of a shared machine;
  // the summary is the median round. Round 0 warms up (JIT, connection pools) and is not counted.
  const results: RoundResult[] = [];
  const allOverheads: number[] = [];
  console.log(`${rounds} rounds of ${matchCount} matches, ${concurrency} at a time`);
  for (let round = 0; round <= rounds; round++) {
    const profiler = values.profile && round === rounds ? await startProfiler() : undefined;
    const arena = await arenaRound();
    await profiler?.stopInto(values.profile!);
    const raw = await rawRound(arena.ids);
    if (round === 0) continue;
    allOverheads.push(...arena.overheads);
    const result = roundResult(arena, arena.overheads.length, raw, raw.requests);
    results.push(result);
    console.log(
      `round ${round}: ${result.matchRate.toFixed(1)} matches/s, ${result.moveRate.toFixed(0)} moves/s; raw ${result.rawRate.toFixed(0)} requests/s; arena/raw ${(100 * result.ratio).toFixed(1)}%; CPU µs per move ${costLine(result.arenaCpu)}, per raw request ${costLine(result.rawCpu)}`,
    );
  }
  await worker.close(1000);

  const median = (pick: (r: RoundResult) => number) => {
    const sorted = results.map(pick).sort((x, y) => x - y);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  /** Each process's median over the rounds of the CPU `of` picks. */
  const medianCpu = (of: (r: RoundResult) => CpuPerItem): CpuPerItem => ({
    self: median((r) => of(r).self),
    bots: median((r) => of(r).bots),
    redis: median((r) => of(r).redis),
  });
  const arenaCpu = medianCpu((r) => r.arenaCpu);
  const rawCpu = medianCpu((r) => r.rawCpu);
  // Neither run keeps every core busy (`coresBusy`): each is bound by the one thread that drives
  // it, the worker's or the raw client's, whose CPU per move then sets the rate. Their ratio is
  // what the CPU predicts, and the raw client's cost over the target is what a move may cost the
  // worker process for the arena to reach 80% of the raw rate.
  const sorted = allOverheads.sort((x, y) => x - y);
  const summary = {
    bench: 'arena',
    matches: matchCount,
    concurrency,
    rounds,
    matchesPerSecond: round1(median((r) => r.matchRate)),
    movesPerSecond: Math.round(median((r) => r.moveRate)),
    rawRequestsPerSecond: Math.round(median((r) => r.rawRate)),
    ratio: round3(median((r) => r.ratio)),
    cpuUsPerMove: mapValues(arenaCpu, round1),
    cpuUsPerRawRequest: mapValues(rawCpu, round1),
    ratioFromCpu: round3(rawCpu.self / arenaCpu.self),
    cpuUsPerMoveFor80: round1(rawCpu.self / 0.8),
    coresBusy: { arena: round3(median((r) => r.arenaBusy)), raw: round3(median((r) => r.rawBusy)) },
    overheadMs: { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) },
  };
  console.log(`medians over ${rounds} rounds:`);
  console.log(`  matches per second: ${summary.matchesPerSecond}`);
  console.log(`  arena moves per second: ${summary.movesPerSecond}`);
  console.log(
    `  raw bot requests per second (same bots, same client, no arena): ${summary.rawRequestsPerSecond}`,
  );
  console.log(`  arena rate / raw rate: ${(100 * summary.ratio).toFixed(1)}%`);
  console.log(`  CPU per arena move (µs): ${costLine(arenaCpu)}`);
  console.log(`  CPU per raw request (µs): ${costLine(rawCpu)}`);
  console.log(
    `  cores busy: ${summary.coresBusy.arena} of ${cores} in the arena, ${summary.coresBusy.raw} raw; the ratio this process's CPU predicts: ${(100 * summary.ratioFromCpu).toFixed(1)}%`,
  );
  console.log(`  for 80% of the raw rate a move may cost this process ${summary.cpuUsPerMoveFor80} µs`);
  console.log(
    `arena overhead per move (bot time excluded), all counted rounds: p50 ${quantile(sorted, 0.5).toFixed(3)} ms, p99 ${quantile(sorted, 0.99).toFixed(3)} ms`,
  );
  console.log(JSON.stringify(summary));

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
