import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ensureHouseBots } from '../arena/house-bots.ts';
import { BotClient } from '../bot-client/index.ts';
import { type Config, rateLimitPrefix } from '../config.ts';
import { quitWithin } from '../connections/close-within.ts';
import {
  connected,
  connectedToRedis7,
  createRedis,
  duplicateClient,
  RedisOutageLog,
  redisErrorListener,
} from '../connections/redis-connection.ts';
import { createApp } from '../http/app.ts';
import { clientOriginHasher } from '../http/rate-limit.ts';
import { BullMatchQueue } from '../queue/match-queue.ts';
import { redisRateLimitStores } from '../redis/rate-limit-store.ts';
import { RedisPullStore } from '../redis/redis-pull-store.ts';
import { redisStores } from '../redis/redis-stores.ts';
import { replicaWaitOf } from '../redis/replica-wait.ts';
import { moveKeys, signInKeysMove } from '../redis/store-copy.ts';
import { type Clock, systemClock } from '../support/clock.ts';
import { secureRandomBytes } from '../support/random.ts';
import { loadSoloLayouts } from '../support/solo-layout-key.ts';

/**
 * Builds the API of one process: a fail-fast Redis connection, and on it the stores (the arena's,
 * pull mode's, the rate limiters'), the queue and the app, which sees only their interfaces (the
 * tests' harness builds its app here too, so they run this very wiring).
 */
export async function startApi(
  config: Config,
  logger: Logger,
  isShuttingDown: () => boolean,
  { clock = systemClock }: { readonly clock?: Clock } = {},
) {
  const outages = new RedisOutageLog(logger);
  const redis = outages.watch(createRedis(config.redis.target, 'api'));
  await connectedToRedis7(redis);
  const stores = redisStores(redis, config.redis.prefix, {
    replicaWait: replicaWaitOf(redis, config.redis.prefix, config.redis.replicaWait, logger),
  });
  // Long polls and event streams wait through the one subscriber the pull store opens for them.
  // The pull store shares the store's connection on purpose: a long poll reads the bot's newest
  // event id before the match's state, and only one connection keeps those two in that order.
  const pull = new RedisPullStore(redis, config.redis.prefix, {
    onWaitError: redisErrorListener(
      outages,
      logger,
      'stream waits failed: long polls and event streams answer only at their deadlines until they can read again',
    ),
  });
  // A connection of the queue's own: BullMQ's scripts on the store's would slow its pipelines.
  const queueRedis = outages.watch(duplicateClient(redis, { connectionName: 'reversi-arena-api-queue' }));
  await connected(queueRedis).catch((error: unknown) => {
    redis.disconnect();
    throw error;
  });
  const queue = new BullMatchQueue(
    queueRedis,
    config.redis.prefix,
    redisErrorListener(outages, logger, 'match queue error'),
  );
  // On a cluster, sign-ins kept under the arena's hash tag by an earlier version move under their own.
  const signInMove = signInKeysMove(config.redis.prefix);
  const movedSignIns = signInMove === undefined ? 0 : await moveKeys(redis, config.redis.prefix, signInMove);
  if (movedSignIns > 0) logger.info({ keys: movedSignIns }, 'sign-ins: moved under their own hash tag');
  // Bots listed before the leaderboard kept their rated games apart get them counted, once.
  const backfilled = await stores.ratings.backfillLeaderboardGames();
  if (backfilled > 0) logger.info({ bots: backfilled }, 'leaderboard: rated games counted');
  // Matches queued or running since before a cap's set existed count against it from now on.
  const indexed = await stores.matches.backfillActiveSets();
  if (indexed > 0) logger.info({ matches: indexed }, 'active matches: added to the sets the caps count');
  if (config.houseBots) {
    const house = await ensureHouseBots(stores, {
      now: clock.now(),
      random: secureRandomBytes,
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
  const botClient = new BotClient({
    allowPrivateAddresses: config.allowPrivateBotUrls,
    dnsServers: config.botDnsServers,
  });
  // On a cluster the rate limits' counters lie under a hash tag of their own, sent on a connection
  // of their own: ioredis' auto-pipelining groups a script call by its first argument, which for
  // their scripts is not a key, and would mix their slot's commands with the arena's in one
  // pipeline, which a cluster refuses (docs/cluster.md).
  const rateRedis =
    rateLimitPrefix(config.redis.prefix) === config.redis.prefix
      ? redis
      : outages.watch(duplicateClient(redis, { connectionName: 'reversi-arena-api-rate' }));
  if (rateRedis !== redis)
    await connected(rateRedis).catch((error: unknown) => {
      redis.disconnect();
      queueRedis.disconnect();
      throw error;
    });
  const rateLimitStores = redisRateLimitStores(rateRedis, rateLimitPrefix(config.redis.prefix));
  const clientOrigin = clientOriginHasher(await stores.clientOriginKey(secureRandomBytes));
  await loadSoloLayouts(config.soloSecret, () => stores.soloLayoutKey(secureRandomBytes));
  const app = createApp({
    accounts: stores.accounts,
    signIns: stores.signIns,
    botClient,
    config,
    stores,
    tournaments: stores.tournaments,
    queue,
    pull,
    rateLimitStores,
    clock,
    random: secureRandomBytes,
    logger,
    registry,
    isShuttingDown,
    clientOrigin,
  });
  return {
    app,
    stores,
    queue,
    redis,
    registry,
    async close() {
      await botClient.close();
      await queue.close();
      await pull.close();
      // Hits counted in this process and not sent yet would be lost.
      await rateLimitStores.shutdown().catch(() => {});
      await stores.close();
      await quitWithin(queueRedis);
      if (rateRedis !== redis) await quitWithin(rateRedis);
      await quitWithin(redis);
    },
  };
}
