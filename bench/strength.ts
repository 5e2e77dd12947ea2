/**
 * `npm run bench:strength [-- --bots 10000 --results 1000000 --more-results 10000 --on-loop-bots 0]`:
 * the event-loop delay of a worker process while the scheduler recomputes Bradley–Terry strengths.
 * Seeds the rated tallies straight into Redis (bots ranked by a hidden strength, each result
 * against a near neighbour in rank, one in ten against anyone), then runs
 * `ArenaScheduler.recomputeStrength` (reading, fitting and saving in a worker thread) under
 * `monitorEventLoopDelay`: first with no saved strengths, then, after `--more-results` more
 * results, from the saved ones, and once more from scratch over the same results to compare the
 * iterations. Beside them: the same process idle for as long (the noise floor of a shared
 * machine), and reading the tallies on this thread, as the fit did before its thread read them.
 * With `--on-loop-bots N` it also times the oldest way, the fit on this thread, at N bots. Prints
 * one JSON line last.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { MatchService } from '../src/arena/matches.ts';
import { RoundMaker } from '../src/arena/tournament-rounds.ts';
import { loadConfig } from '../src/config.ts';
import { createRedis } from '../src/connections/redis-connection.ts';
import { ArenaScheduler } from '../src/matchmaking/scheduler.ts';
import { scheduledEvents } from '../src/pool/worker-pool.ts';
import { BullMatchQueue } from '../src/queue/match-queue.ts';
import { bradleyTerryFromColumns } from '../src/rating/bradley-terry.ts';
import { deleteKeysUnder } from '../src/redis/maintenance.ts';
import { RedisPullStore } from '../src/redis/redis-pull-store.ts';
import { redisStores } from '../src/redis/redis-stores.ts';
import { systemClock } from '../src/support/clock.ts';
import { secureRandomBytes, seededRandom } from '../src/support/random.ts';

const { values } = parseArgs({
  options: {
    bots: { type: 'string', default: '10000' },
    results: { type: 'string', default: '1000000' },
    'more-results': { type: 'string', default: '10000' },
    'on-loop-bots': { type: 'string', default: '0' },
  },
});
const bots = Number(values.bots);
const results = Number(values.results);
const moreResults = Number(values['more-results']);
const onLoopBots = Number(values['on-loop-bots']);

const prefix = `bench-strength-${randomUUID()}`;
const config = loadConfig({
  ...process.env,
  REDIS_PREFIX: prefix,
  MATCHMAKING_ENABLED: 'false',
  HOUSE_BOTS: 'false',
});
const redis = createRedis(config.redis.url, 'worker');
await redis.connect();
const keys = {
  tallies: `${prefix}:rated-tallies`,
  strength: `${prefix}:strength`,
  bot: (id: string) => `${prefix}:bot:${id}`,
};

/** Tally fields of `count` results among `n` bots: `<black> <white> <score>` → count. */
function seed(n: number, count: number, seedValue: number): Map<string, number> {
  const random = seededRandom(seedValue);
  const strength = Array.from({ length: n }, (_, i) => (n - i) * (2000 / n)); // Elo, strongest first
  const fields = new Map<string, number>();
  for (let r = 0; r < count; r++) {
    const black = Math.floor(random() * n);
    let white = random() < 0.9 ? black + (Math.floor(random() * 41) - 20) : Math.floor(random() * n);
    if (white < 0 || white >= n || white === black) white = (black + 1) % n;
    const p = 1 / (1 + 10 ** ((strength[white]! - strength[black]!) / 400));
    const u = random();
    const score = u < p * 0.9 ? 1 : u < p * 0.9 + 0.1 ? 0.5 : 0;
    const field = `bot_${black} bot_${white} ${score}`;
    fields.set(field, (fields.get(field) ?? 0) + 1);
  }
  return fields;
}

/** Adds `fields` to the tallies, as that many more finished matches would. */
async function add(fields: Map<string, number>): Promise<void> {
  const entries = [...fields];
  for (let start = 0; start < entries.length; start += 10_000) {
    const pipeline = redis.pipeline();
    for (const [field, count] of entries.slice(start, start + 10_000))
      pipeline.hincrby(keys.tallies, field, count);
    await pipeline.exec();
  }
}

async function write(fields: Map<string, number>, n: number): Promise<void> {
  const entries = [...fields];
  for (let start = 0; start < entries.length; start += 10_000) {
    await redis.hset(keys.tallies, Object.fromEntries(entries.slice(start, start + 10_000)));
  }
  for (let start = 0; start < n; start += 1_000) {
    const pipeline = redis.pipeline();
    for (let i = start; i < Math.min(n, start + 1_000); i++)
      pipeline.hset(keys.bot(`bot_${i}`), 'rating', 1500);
    await pipeline.exec();
  }
}

/** Runs `work` under a fresh event-loop delay histogram: its answer, and the delay in milliseconds. */
async function delayDuring<T>(work: () => Promise<T>) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  // The histogram measures from its first tick: a stall that starts before it would go unseen.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  const answer = await work();
  const ms = performance.now() - started;
  // A fit on this thread holds the loop to its end: let the histogram see that stall.
  await new Promise((resolve) => setTimeout(resolve, 20));
  histogram.disable();
  return {
    answer,
    delay: {
      ms: Math.round(ms),
      loopDelayP99Ms: Math.round(histogram.percentile(99) / 1e4) / 100,
      loopDelayMaxMs: Math.round(histogram.max / 1e4) / 100,
    },
  };
}

try {
  const seeded = seed(bots, results, 1);
  await write(seeded, bots);
  const pairings = seeded.size;
  // A worker's heap holds none of this: kept, its collection would show up as loop delay below.
  seeded.clear();
  const stores = redisStores(redis, prefix);
  const queue = new BullMatchQueue(redis, config.redis.prefix);
  const scheduler = new ArenaScheduler({
    connection: redis,
    config,
    stores,
    pull: new RedisPullStore(redis, prefix),
    matches: new MatchService({
      stores,
      queue,
      clock: systemClock,
      random: () => Buffer.alloc(0),
      limits: config.limits,
    }),
    events: scheduledEvents({
      stores,
      rounds: new RoundMaker({ queue, clock: systemClock, random: secureRandomBytes }),
      clock: systemClock,
      config,
      queue,
    }),
    clock: systemClock,
    random: seededRandom(1),
    logger: pino({ level: 'silent' }),
  });
  // The first fit: no saved strengths to start from.
  const cold = await delayDuring(() => scheduler.recomputeStrength());
  // The noise floor: the same process doing nothing for as long (the machine is shared).
  const idle = await delayDuring(() => new Promise((resolve) => setTimeout(resolve, cold.delay.ms)));
  // A scheduled refit: a few more results, started from the strengths just saved.
  await add(seed(bots, moreResults, 3));
  const warm = await delayDuring(() => scheduler.recomputeStrength());
  // The same results from scratch, for the iterations the start saved.
  await redis.del(keys.strength);
  const scratch = await delayDuring(() => scheduler.recomputeStrength());
  // What no longer runs on this thread: reading the tallies (HSCAN batches) into columns. Last,
  // so that the garbage it leaves is not collected during a fit above.
  const reading = await delayDuring(() => stores.ratings.ratedTallies());
  const line: Record<string, unknown> = {
    bots,
    results,
    pairings,
    moreResults,
    inThread: { ...cold.answer, ...cold.delay },
    warm: { ...warm.answer, ...warm.delay },
    fromScratch: { ...scratch.answer, ...scratch.delay },
    idle: idle.delay,
    readingTalliesOnLoop: { rows: reading.answer.a.length, ...reading.delay },
  };
  if (onLoopBots > 0) {
    // The old way at a smaller size: read the tallies, then fit on this thread.
    await redis.del(keys.tallies);
    await write(seed(onLoopBots, Math.round((results * onLoopBots) / bots), 2), onLoopBots);
    const tallies = await stores.ratings.ratedTallies();
    const onLoop = await delayDuring(async () => bradleyTerryFromColumns(tallies));
    line.onLoop = { bots: onLoopBots, iterations: onLoop.answer.iterations, ...onLoop.delay };
  }
  await scheduler.close();
  await queue.close();
  line.load = (await import('node:os')).loadavg().map((l) => Math.round(l * 100) / 100);
  console.log(JSON.stringify(line));
} finally {
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
}
