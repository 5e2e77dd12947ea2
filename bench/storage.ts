/**
 * npm run bench:storage [-- --matches N --concurrency C --openings balanced|standard]
 * npm run bench:storage -- --bots N [--matches M]: a busy arena instead (see storage-busy.ts).
 *
 * Plays N rated matches between two house bots (greedy and random, played in-process: no HTTP),
 * from balanced openings as the matchmaker plays them (by default; `standard`: from the start),
 * through the real queue, worker, runner and stores, under a throwaway key prefix, then sums
 * `MEMORY USAGE` over every key under the prefix (the BullMQ keys are under it too) and divides by
 * N (keys with a TTL apart, as `expiringBytesPerMatch`: they go by themselves): the Redis memory one
 * finished match costs, everything the arena keeps for it (record, moves,
 * indexes, rating history, bot events, queue leftovers) plus the few fixed keys (the bots, the
 * leaderboard) spread over N. Prints a breakdown by key kind, then one JSON line last.
 * Needs Redis at REDIS_URL.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ensureHouseBots } from '../src/arena/house-bots.ts';
import { ARENA_OPENINGS, MatchService } from '../src/arena/matches.ts';
import { BotClient } from '../src/bot-client/index.ts';
import { loadConfig } from '../src/config.ts';
import { createRedis } from '../src/connections/redis-connection.ts';
import { HOUSE_BOTS } from '../src/house/roster.ts';
import { eloRule } from '../src/model/rating-rule.ts';
import { BullMatchQueue } from '../src/queue/match-queue.ts';
import { deleteKeysUnder } from '../src/redis/maintenance.ts';
import { redisStores } from '../src/redis/redis-stores.ts';
import type { Player } from '../src/runner/player.ts';
import { playersFor } from '../src/runner/players.ts';
import { MatchRunner } from '../src/runner/runner.ts';
import { systemClock } from '../src/support/clock.ts';
import { benchWorker } from './bench-worker.ts';
import { type KindMemory, keyMemory } from './key-memory.ts';
import { busyArenaStorage } from './storage-busy.ts';

const { values } = parseArgs({
  options: {
    matches: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '16' },
    /** Keep the keys afterwards (to look at them); they are deleted by default. */
    keep: { type: 'boolean', default: false },
    /** `balanced`: each pair of matches from one balanced opening, colours swapped; `standard`: none. */
    openings: { type: 'string', default: 'balanced' },
    /** A busy arena of this many bots paired by matchmaking, push and pull (storage-busy.ts). */
    bots: { type: 'string' },
  },
});
const matchCount = Number(values.matches);
const concurrency = Number(values.concurrency);
// Short, as the arena's own (`arena`): key names count in the memory measured.
const prefix = `bs-${randomUUID().slice(0, 8)}`;
const config = loadConfig({ ...process.env, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' });
const logger = pino({ level: 'warn' });

async function main(): Promise<void> {
  const redis = createRedis(config.redis.url, 'worker');
  const workerRedis = createRedis(config.redis.url, 'worker');
  await Promise.all([redis.connect(), workerRedis.connect()]);
  const stores = redisStores(redis, prefix);
  const queue = new BullMatchQueue(workerRedis, prefix);
  await ensureHouseBots(stores, { now: Date.now(), random: randomBytes, startingRating: 1500 });
  const random = HOUSE_BOTS.find((bot) => bot.engine === 'random')!.id;
  const greedy = HOUSE_BOTS.find((bot) => bot.engine === 'greedy')!.id;

  const client = new BotClient({ allowPrivateAddresses: true });
  const noPull = (): Player => {
    throw new Error('no pull bots in the benchmark');
  };
  const runner = new MatchRunner({
    stores,
    clock: systemClock,
    playerFor: playersFor(client, noPull),
    rate: eloRule(config.rating),
    logger,
  });
  const matches = new MatchService({
    stores,
    queue,
    clock: systemClock,
    random: randomBytes,
    limits: config.limits,
  });
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
  const done = new Promise<void>((resolve) => {
    worker.worker.on('completed', () => {
      if (++completed === matchCount) resolve();
    });
  });

  const started = performance.now();
  for (let i = 0; i < matchCount; i++) {
    const [black, white] = i % 2 === 0 ? [greedy, random] : [random, greedy];
    const opening =
      values.openings === 'balanced'
        ? ARENA_OPENINGS[Math.floor(i / 2) % ARENA_OPENINGS.length]!.id
        : undefined;
    await matches.create({ kind: 'admin' }, { black, white, rated: true, ...(opening ? { opening } : {}) });
  }
  await done;
  const seconds = (performance.now() - started) / 1000;
  await worker.close(1000);
  await stores.close();

  const finished = await redis.zcard(stores.keys.matches('finished'));
  // Keys with a TTL (a finished match's spectator stream) are not what the arena keeps for a
  // match: counted apart, as what the last minutes' matches hold for now.
  const memory = await keyMemory(redis, prefix);
  const total = memory.lasting;
  const expiring = memory.expiring;
  const byKind = new Map<string, KindMemory>();
  for (const [kind, { keys, bytes }] of [...memory.lastingByKind, ...memory.expiringByKind]) {
    const sum = byKind.get(kind) ?? { keys: 0, bytes: 0 };
    byKind.set(kind, { keys: sum.keys + keys, bytes: sum.bytes + bytes });
  }
  const kinds = [...byKind].sort(([, x], [, y]) => y.bytes - x.bytes);
  console.log(
    `${matchCount} matches (${finished} finished) in ${seconds.toFixed(1)} s; bytes per match by key kind:`,
  );
  for (const [kind, { keys, bytes }] of kinds) {
    console.log(`  ${(bytes / matchCount).toFixed(1).padStart(8)}  ${kind} (${keys} keys)`);
  }

  await client.close();
  if (!values.keep) {
    await queue.queue.obliterate({ force: true });
    await deleteKeysUnder(redis, prefix);
  }
  await queue.close();
  await redis.quit();
  await workerRedis.quit();
  console.log(
    JSON.stringify({
      matches: matchCount,
      finished,
      bytesPerMatch: Math.round(total / matchCount),
      totalBytes: total,
      expiringBytesPerMatch: Math.round(expiring / matchCount),
      byKind: Object.fromEntries(kinds.map(([kind, { bytes }]) => [kind, Math.round(bytes / matchCount)])),
      ...(values.keep ? { prefix } : {}),
    }),
  );
}

const run =
  values.bots === undefined
    ? main()
    : busyArenaStorage({ bots: Number(values.bots), matches: Number(values.matches ?? 1000) });
run.catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
