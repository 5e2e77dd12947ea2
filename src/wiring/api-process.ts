import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ensureHouseBots } from '../arena/house-bots.ts';
import { BotClient } from '../bot-client/index.ts';
import { type Config, rateLimitPrefix, signInPrefix } from '../config.ts';
import { quitWithin } from '../connections/close-within.ts';
import {
  connected,
  connectedToRedis7,
  createRedis,
  duplicateClient,
  type RedisClient,
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
  // Every connection opened here, dropped at once if the start fails, quit in turn by `close`.
  const opened: RedisClient[] = [redis];
  const own = async (connectionName: string): Promise<RedisClient> => {
    const connection = outages.watch(duplicateClient(redis, { connectionName }));
    opened.push(connection);
    await connected(connection);
    return connection;
  };
  // On a cluster a key space under a hash tag of its own (config.ts) goes on a connection of its
  // own: ioredis' auto-pipelining groups a script call whose key count varies by its first
  // argument, the count, not a key, and so put the arena's scripts in one pipeline with another
  // tag's commands, which a cluster refuses (docs/cluster.md). On one server they share the store's.
  const forKeysUnder = (prefix: string, connectionName: string) =>
    prefix === config.redis.prefix ? redis : own(connectionName);
  try {
    const signInRedis = await forKeysUnder(signInPrefix(config.redis.prefix), 'reversi-arena-api-sign-in');
    const stores = redisStores(redis, config.redis.prefix, {
      replicaWait: replicaWaitOf(redis, config.redis.prefix, config.redis.replicaWait, logger),
      signInRedis,
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
    const queue = new BullMatchQueue(
      await own('reversi-arena-api-queue'),
      config.redis.prefix,
      redisErrorListener(outages, logger, 'match queue error'),
    );
    // On a cluster, sign-ins an earlier version kept under the arena's hash tag move under their own.
    const signInMove = signInKeysMove(config.redis.prefix);
    if (signInMove !== undefined) {
      const moved = await moveKeys(redis, config.redis.prefix, signInMove, stores.locks);
      if (moved > 0) logger.info({ keys: moved }, 'sign-ins: moved under their own hash tag');
    }
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
    const rateLimitStores = redisRateLimitStores(
      await forKeysUnder(rateLimitPrefix(config.redis.prefix), 'reversi-arena-api-rate'),
      rateLimitPrefix(config.redis.prefix),
    );
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
        // The store's connection last: the others were made from it.
        for (const connection of opened.reverse()) await quitWithin(connection);
      },
    };
  } catch (error) {
    for (const connection of opened) connection.disconnect();
    throw error;
  }
}
