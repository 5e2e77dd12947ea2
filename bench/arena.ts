/**
 * npm run bench:arena [-- --matches N --concurrency C]
 *
 * Plays N matches between two instant loopback bots through the real queue, workers, store and bot
 * client, and prints matches per second, the arena's own time per move (p50/p99, the bot's answer
 * time excluded), and, in the same run, the raw request rate of the same bots called by the same
 * client without the arena. Needs Redis at REDIS_URL; works under a throwaway key prefix.
 */

import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { BotService } from '../src/arena/bots.ts';
import { MatchService } from '../src/arena/matches.ts';
import { BotClient } from '../src/bot-client/index.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import type { Player } from '../src/match/player.ts';
import { playersFor } from '../src/match/players.ts';
import { eloRule } from '../src/match/rating-rule.ts';
import { replay } from '../src/match/replay.ts';
import { MatchRunner } from '../src/match/runner.ts';
import { MatchWorker } from '../src/match/worker.ts';
import { type BotState, botState } from '../src/protocol/state.ts';
import { BullMatchQueue } from '../src/queue/match-queue.ts';
import { deleteKeysUnder } from '../src/store/maintenance.ts';
import { createRedis } from '../src/store/redis-connection.ts';
import { RedisStore } from '../src/store/redis-store.ts';

const { values } = parseArgs({
  options: { matches: { type: 'string', default: '200' }, concurrency: { type: 'string', default: '8' } },
});
const matchCount = Number(values.matches);
const concurrency = Number(values.concurrency);
const prefix = `bench-${randomUUID()}`;
const config = loadConfig({
  ...process.env,
  REDIS_PREFIX: prefix,
  ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
  LOG_LEVEL: 'warn',
});
const logger = pino({ level: 'warn' });
const random = (size: number) => randomBytes(size);

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

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function main(): Promise<void> {
  const redis = createRedis(config.redis.url, 'worker');
  const workerRedis = createRedis(config.redis.url, 'worker');
  await Promise.all([redis.connect(), workerRedis.connect()]);
  const store = new RedisStore(redis, prefix);
  const queue = new BullMatchQueue(redis, prefix);
  const instant = await instantBots();
  const [urlA, urlB] = instant.urls;
  const bots = new BotService({
    store,
    clock: systemClock,
    random,
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
    store,
    clock: systemClock,
    playerFor: playersFor(client, noPull),
    rate: eloRule(config.rating),
    logger,
    onMoveTimed: ({ overheadMs }) => overheads.push(overheadMs),
  });
  const matches = new MatchService({ store, queue, clock: systemClock, random, limits: config.limits });

  // Warm up (JIT, connection pools) with a few matches played directly, then measure through the queue.
  for (let i = 0; i < 3; i++) {
    const warm = await matches.create({ kind: 'admin' }, { black: a.bot.id, white: b.bot.id, rated: false });
    await runner.play(warm.id, new AbortController().signal);
  }
  overheads.length = 0;
  await queue.queue.drain(true);

  const ids: string[] = [];
  for (let i = 0; i < matchCount; i++) {
    const [black, white] = i % 2 === 0 ? [a, b] : [b, a];
    ids.push(
      (await matches.create({ kind: 'admin' }, { black: black.bot.id, white: white.bot.id, rated: true })).id,
    );
  }
  const started = performance.now();
  const worker = new MatchWorker({
    connection: workerRedis,
    prefix,
    concurrency,
    runner,
    store,
    queue,
    clock: systemClock,
    logger,
    reconcileEveryMs: 3_600_000,
  });
  let done = 0;
  await new Promise<void>((resolve) => {
    worker.worker.on('completed', () => {
      if (++done === matchCount) resolve();
    });
  });
  const arenaSeconds = (performance.now() - started) / 1000;
  await worker.close(1000);
  const moves = overheads.length;

  // The same bots, called by the same client with the same concurrency, without the arena.
  // The same requests without the arena: every state of the first matches played, rebuilt from
  // their records before the clock starts, sent to the bot whose turn it was, by the same client.
  const requests: { url: string; secret: string | null; state: BotState }[] = [];
  const byId = new Map([
    [a.bot.id, { url: urlA, secret: a.bot.webhookSecret }],
    [b.bot.id, { url: urlB, secret: b.bot.webhookSecret }],
  ]);
  for (const id of ids) {
    if (requests.length >= moves) break;
    const match = (await store.getMatch(id))!;
    const recorded = await store.getMoves(id);
    for (let ply = 0; ply < recorded.length && requests.length < moves; ply++) {
      const played = recorded.slice(0, ply);
      const game = replay(match.rules, played);
      if (recorded[ply]!.square === 'pass') continue;
      const mover = game.position.toMove === 'black' ? match.black.id : match.white.id;
      const target = byId.get(mover)!;
      const state = botState({
        match,
        moves: played,
        position: game.position,
        timeLimitMs: match.rules.timeLimitMs,
        remainingOverageMs: game.banks[game.position.toMove],
        lastLatencyMs: game.lastLatency[game.position.toMove],
        opponentRating: 1500,
      });
      requests.push({ url: target.url, secret: target.secret, state });
    }
  }
  const rawStarted = performance.now();
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
  const rawSeconds = (performance.now() - rawStarted) / 1000;

  const sorted = overheads.sort((x, y) => x - y);
  const arenaRate = moves / arenaSeconds;
  const rawRate = requests.length / rawSeconds;
  console.log(
    `matches: ${matchCount} (${moves} moves) with ${concurrency} concurrent, in ${arenaSeconds.toFixed(2)} s`,
  );
  console.log(`matches per second: ${(matchCount / arenaSeconds).toFixed(1)}`);
  console.log(`arena moves per second: ${arenaRate.toFixed(0)}`);
  console.log(
    `arena overhead per move (bot time excluded): p50 ${quantile(sorted, 0.5).toFixed(3)} ms, p99 ${quantile(sorted, 0.99).toFixed(3)} ms`,
  );
  console.log(`raw bot requests per second (same bots, same client, no arena): ${rawRate.toFixed(0)}`);
  console.log(`arena rate / raw rate: ${((100 * arenaRate) / rawRate).toFixed(1)}%`);

  await client.close();
  instant.stop();
  await queue.queue.obliterate({ force: true });
  await queue.close();
  await store.close();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  await workerRedis.quit();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
