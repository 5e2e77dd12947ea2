/**
 * npm run sim:ladder [-- --matches 400 --seconds 300]
 *
 * Bots of known strength (random, greedy, alpha-beta at depths 1 and 3) play each other through the
 * real scheduler, queue, workers and HTTP bot client, on Redis under a throwaway prefix. The true
 * strength order comes from a round robin played directly with the rules engine beforehand. Prints,
 * as matches accumulate, whether the leaderboard's Elo order and its Bradley–Terry order equal the
 * true order, and at the end after how many matches each first matched it and matched it for good.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { type BotKind, chooser, playGame, seededRandom, startBot } from '../examples/bots/index.ts';
import { BotService } from '../src/arena/bots.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { DEFAULT_RULES } from '../src/reversi/index.ts';
import { startWorkers } from '../src/service.ts';
import { deleteKeysUnder } from '../src/store/maintenance.ts';
import { createRedis } from '../src/store/redis-connection.ts';
import { RedisStore } from '../src/store/redis-store.ts';

const { values } = parseArgs({
  options: { matches: { type: 'string', default: '400' }, seconds: { type: 'string', default: '300' } },
});
const maxMatches = Number(values.matches);
const maxSeconds = Number(values.seconds);

const ROSTER: { name: string; kind: BotKind; depth?: number }[] = [
  { name: 'random', kind: 'random' },
  { name: 'greedy', kind: 'greedy' },
  { name: 'alphabeta-1', kind: 'alphabeta', depth: 1 },
  { name: 'alphabeta-3', kind: 'alphabeta', depth: 3 },
];

/** The true order: a round robin with the engine alone, 20 games per ordered pair. */
function trueScores(): Map<string, number> {
  const scores = new Map(ROSTER.map((bot) => [bot.name, 0]));
  const random = seededRandom(42);
  for (const a of ROSTER) {
    for (const b of ROSTER) {
      if (a === b) continue;
      for (let game = 0; game < 20; game++) {
        const result = playGame(
          {
            black: chooser(a.kind, { depth: a.depth, random }),
            white: chooser(b.kind, { depth: b.depth, random }),
          },
          { ...DEFAULT_RULES, firstPlayer: 'black' },
        );
        const blackScore = result.winner === 'black' ? 1 : result.winner === null ? 0.5 : 0;
        scores.set(a.name, (scores.get(a.name) ?? 0) + blackScore);
        scores.set(b.name, (scores.get(b.name) ?? 0) + 1 - blackScore);
      }
    }
  }
  return scores;
}

/** True when `order` (best first) never ranks a truly weaker bot above a truly stronger one. */
function agrees(order: readonly string[], truth: Map<string, number>): boolean {
  if (order.length < ROSTER.length) return false;
  for (let i = 0; i < order.length; i++) {
    for (let j = i + 1; j < order.length; j++) {
      if ((truth.get(order[i]!) ?? 0) < (truth.get(order[j]!) ?? 0)) return false;
    }
  }
  return true;
}

async function main(): Promise<void> {
  const truth = trueScores();
  console.log('true strength (round-robin points):', Object.fromEntries(truth));
  const prefix = `sim-${randomUUID()}`;
  const config = loadConfig({
    ...process.env,
    REDIS_PREFIX: prefix,
    ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
    MATCHMAKING_ENABLED: 'true',
    MATCHMAKING_INTERVAL_MS: '300',
    MATCHMAKING_MAX_CONCURRENT_PER_BOT: '2',
    STRENGTH_INTERVAL_MS: '500',
    TIME_LIMIT_MS_DEFAULT: '5000',
    WORKER_CONCURRENCY: '6',
    LOG_LEVEL: 'warn',
  });
  const redis = createRedis(config.redis.url, 'worker');
  await redis.connect();
  const store = new RedisStore(redis, prefix);
  const bots = new BotService({
    store,
    clock: systemClock,
    random: (size) => randomBytes(size),
    startingRating: config.rating.start,
    allowPrivateBotUrls: true,
  });
  const running = [];
  const names = new Map<string, string>();
  for (const entry of ROSTER) {
    const server = await startBot(entry.kind, { port: 0, depth: entry.depth });
    running.push(server);
    const { bot } = await bots.register({ name: entry.name, url: server.url });
    names.set(bot.id, entry.name);
  }
  const workers = await startWorkers(config, pino({ level: 'warn' }));
  const started = performance.now();
  const firstAt: Record<'elo' | 'bt', number | null> = { elo: null, bt: null };
  const stableFrom: Record<'elo' | 'bt', number | null> = { elo: null, bt: null };
  let finished = 0;
  let lastPrinted = -1;
  while (finished < maxMatches && performance.now() - started < maxSeconds * 1000) {
    await new Promise((done) => setTimeout(done, 500));
    finished = (await store.matchIdsInStatus('finished', 100_000)).length;
    const board = await store.leaderboard(0, 100);
    const eloOrder = board.rows.map((row) => names.get(row.bot.id) ?? '?');
    const btOrder = [...board.rows]
      .filter((row) => row.strength !== null)
      .sort((x, y) => y.strength!.rating - x.strength!.rating)
      .map((row) => names.get(row.bot.id) ?? '?');
    for (const [kind, order] of [
      ['elo', eloOrder],
      ['bt', btOrder],
    ] as const) {
      if (agrees(order, truth)) {
        firstAt[kind] ??= finished;
        stableFrom[kind] ??= finished;
      } else {
        stableFrom[kind] = null;
      }
    }
    if (finished >= lastPrinted + 25) {
      lastPrinted = finished;
      console.log(`${finished} matches  Elo: ${eloOrder.join(' > ')}  BT: ${btOrder.join(' > ')}`);
    }
  }
  console.log(`\nafter ${finished} matches in ${((performance.now() - started) / 1000).toFixed(0)} s:`);
  for (const kind of ['elo', 'bt'] as const) {
    const label = kind === 'elo' ? 'Elo          ' : 'Bradley-Terry';
    console.log(
      `${label}: first equal to the true order after ${firstAt[kind] ?? 'never'} matches; equal from ${stableFrom[kind] ?? 'never (not at the end)'} on`,
    );
  }
  await workers.scheduler.queue.obliterate({ force: true });
  await workers.close();
  await Promise.all(running.map((bot) => bot.close()));
  await deleteKeysUnder(redis, prefix);
  await store.close();
  await redis.quit();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
