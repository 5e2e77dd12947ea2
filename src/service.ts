import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ensureHouseBots } from './arena/house-bots.ts';
import { MatchService } from './arena/matches.ts';
import { TournamentProgress } from './arena/tournament-progress.ts';
import { RoundMaker } from './arena/tournament-rounds.ts';
import { BotClient } from './bot-client/index.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { createApp } from './http/app.ts';
import type { Player } from './match/player.ts';
import { playersFor } from './match/players.ts';
import { announceStart, PullPlayer } from './match/pull-player.ts';
import { eloRule } from './match/rating-rule.ts';
import { MatchRunner } from './match/runner.ts';
import { MatchWorker } from './match/worker.ts';
import { ArenaScheduler } from './matchmaking/scheduler.ts';
import { startPoolThreads } from './pool-threads.ts';
import { BullMatchQueue } from './queue/match-queue.ts';
import { redisRateLimitStores } from './store/rate-limit-store.ts';
import { createRedis, RedisOutageLog, redisErrorListener } from './store/redis-connection.ts';
import { RedisPullStore } from './store/redis-pull-store.ts';
import { RedisStore } from './store/redis-store.ts';
import { RedisTournamentStore } from './store/redis-tournament-store.ts';

const random = (size: number) => randomBytes(size);

export interface ArenaProcess {
  /** The express app, when this process serves the API. */
  readonly app?: Express;
  /** Stops taking work, lets running matches finish for the grace period, then closes Redis last. */
  close(): Promise<void>;
}

/**
 * Ends the process with 1 when a shutdown is still stuck after the grace period and
 * `SHUTDOWN_STALL_MS` (Redis is unreachable, so matches can neither be recorded nor handed back).
 * Nothing is lost: another worker resumes those matches from their recorded moves, as after a kill.
 */
export function exitIfShutdownStalls(config: Config, logger: Logger): void {
  const afterMs = config.shutdownGraceMs + config.shutdownStallMs;
  setTimeout(() => {
    logger.error({ afterMs }, 'shutdown is stuck; exiting without finishing it');
    process.exit(1);
  }, afterMs).unref();
}

/** Waits for a connection to be ready, without failing while Redis is still starting. */
async function connect(redis: Redis): Promise<Redis> {
  await redis.connect();
  return redis;
}

/** A process' match workers, on its own thread or on threads of their own. */
export interface MatchWorkers {
  /** Stops taking matches, lets running ones finish for the grace period (or hands them back). */
  close(): Promise<void>;
}

/**
 * Builds the match workers of one process: `npm run worker` runs them alone, `npm start` beside
 * the API. With `WORKER_THREADS` above 0 they play on that many threads (./pool-threads.ts), each a
 * pool of its own (`startMatchPool`) with a share of `WORKER_CONCURRENCY`; the first one also runs
 * matchmaking.
 */
export function startWorkers(config: Config, logger: Logger): Promise<MatchWorkers> {
  if (config.workers.threads === 0) return startMatchPool(config, logger);
  return startPoolThreads(config, logger);
}

/**
 * Builds one pool of match workers on this thread: its own Redis connections, the bot client, the
 * runner, and (unless `matchmaking` is false) the scheduler.
 */
export async function startMatchPool(config: Config, logger: Logger, { matchmaking = true } = {}) {
  const outages = new RedisOutageLog(logger);
  const workerRedis = await connect(outages.watch(createRedis(config.redis.url, 'worker')));
  const storeRedis = await connect(outages.watch(createRedis(config.redis.url, 'worker')));
  const store = new RedisStore(storeRedis, config.redis.prefix);
  // BullMQ defines its scripts on the connection it is given, and ioredis copies every script onto
  // each pipeline it builds: on the store's connection that would tax every store read.
  const queue = new BullMatchQueue(
    workerRedis,
    config.redis.prefix,
    redisErrorListener(outages, logger, 'match queue error'),
  );
  const client = new BotClient({ allowPrivateAddresses: config.allowPrivateBotUrls });
  const pullStore = new RedisPullStore(storeRedis, config.redis.prefix);
  const pull = (botId: string): Player =>
    new PullPlayer(botId, { pull: pullStore, store, clock: systemClock });
  const runner = new MatchRunner({
    store,
    clock: systemClock,
    playerFor: playersFor(client, pull),
    rate: eloRule(config.rating),
    logger,
    announceStart: (match) => announceStart(pullStore, match),
    pauseAfterFaults: config.matchmaking.pauseAfterFaults,
  });
  const tournaments = new TournamentProgress({
    store,
    tournaments: new RedisTournamentStore(storeRedis, config.redis.prefix),
    rounds: new RoundMaker({
      queue,
      clock: systemClock,
      random,
      onEnqueueFailure: (matchId, error) =>
        logger.warn({ err: error, matchId }, 'tournament match stored but not queued yet'),
    }),
    clock: systemClock,
    onError: (tournamentId, error) => logger.warn({ err: error, tournamentId }, 'tournament sweep failed'),
  });
  const worker = new MatchWorker({
    connection: workerRedis,
    prefix: config.redis.prefix,
    concurrency: config.workers.concurrency,
    runner,
    store,
    queue,
    clock: systemClock,
    logger,
    outages,
    lockDurationMs: config.workers.lockDurationMs,
    afterMatch: (matchId) => tournaments.afterMatch(matchId),
    reconcileAlso: () => tournaments.sweep(),
  });
  const scheduler = new ArenaScheduler({
    connection: workerRedis,
    config,
    store,
    pull: pullStore,
    matches: new MatchService({ store, queue, clock: systemClock, random, limits: config.limits }),
    clock: systemClock,
    random: Math.random,
    logger,
    outages,
  });
  if (matchmaking) await scheduler.start();
  logger.info(
    { concurrency: config.workers.concurrency, matchmaking: matchmaking && config.matchmaking.enabled },
    'match workers started',
  );
  return {
    worker,
    scheduler,
    async close() {
      if (matchmaking) await scheduler.close();
      await worker.close(config.shutdownGraceMs);
      await client.close();
      await pullStore.close();
      await queue.close();
      await store.close();
      await storeRedis.quit();
      await workerRedis.quit();
    },
  };
}

/**
 * Builds the API of one process: a fail-fast Redis connection, and on it the stores (the arena's,
 * pull mode's, the rate limiters'), the queue and the app, which sees only their interfaces (the
 * tests' harness builds its app here too, so they run this very wiring).
 */
export async function startApi(config: Config, logger: Logger, isShuttingDown: () => boolean) {
  const outages = new RedisOutageLog(logger);
  const redis = outages.watch(createRedis(config.redis.url, 'api'));
  await connect(redis);
  const store = new RedisStore(redis, config.redis.prefix);
  // Long polls and event streams wait on connections the pull store opens for them.
  const pull = new RedisPullStore(redis, config.redis.prefix);
  // A connection of the queue's own: BullMQ's scripts on the store's would slow its pipelines.
  const queueRedis = outages.watch(redis.duplicate({ connectionName: 'reversi-arena-api-queue' }));
  await connect(queueRedis).catch((error: unknown) => {
    redis.disconnect();
    throw error;
  });
  const queue = new BullMatchQueue(
    queueRedis,
    config.redis.prefix,
    redisErrorListener(outages, logger, 'match queue error'),
  );
  // Bots listed before the leaderboard kept their rated games apart get them counted, once.
  const backfilled = await store.backfillLeaderboardGames();
  if (backfilled > 0) logger.info({ bots: backfilled }, 'leaderboard: rated games counted');
  if (config.houseBots) {
    const house = await ensureHouseBots(store, {
      now: systemClock.now(),
      random,
      startingRating: config.rating.start,
    });
    if (house.registered.length > 0) logger.info({ bots: house.registered }, 'house bots registered');
    if (house.nameTaken.length > 0) {
      logger.warn(
        { names: house.nameTaken },
        'house bots not registered: a bot that is not a house bot has the name',
      );
    }
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const botClient = new BotClient({ allowPrivateAddresses: config.allowPrivateBotUrls });
  const rateLimitStores = redisRateLimitStores(redis, config.redis.prefix);
  const app = createApp({
    botClient,
    config,
    store,
    tournaments: new RedisTournamentStore(redis, config.redis.prefix),
    queue,
    pull,
    rateLimitStores,
    clock: systemClock,
    random,
    logger,
    registry,
    isShuttingDown,
  });
  return {
    app,
    store,
    queue,
    redis,
    registry,
    async close() {
      await botClient.close();
      await queue.close();
      await pull.close();
      // Hits counted in this process and not sent yet would be lost.
      await rateLimitStores.shutdown().catch(() => {});
      await store.close();
      await queueRedis.quit();
      await redis.quit();
    },
  };
}
