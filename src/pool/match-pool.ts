import type { Logger } from 'pino';
import { ChallengeService } from '../arena/challenges.ts';
import { MatchService } from '../arena/matches.ts';
import { TournamentProgress } from '../arena/tournament-progress.ts';
import { RoundMaker } from '../arena/tournament-rounds.ts';
import { BotClient } from '../bot-client/index.ts';
import type { Config } from '../config.ts';
import {
  connected,
  connectedToRedis7,
  createRedis,
  RedisOutageLog,
  redisErrorListener,
} from '../connections/redis-connection.ts';
import { ArenaScheduler } from '../matchmaking/scheduler.ts';
import { eloRule } from '../model/rating-rule.ts';
import { BullMatchQueue } from '../queue/match-queue.ts';
import { RedisPullStore } from '../redis/redis-pull-store.ts';
import { redisStores } from '../redis/redis-stores.ts';
import { TurnPacer } from '../runner/pacer.ts';
import type { Player } from '../runner/player.ts';
import { playersFor } from '../runner/players.ts';
import { announceStart, PullPlayer } from '../runner/pull-player.ts';
import { MatchRunner } from '../runner/runner.ts';
import { systemClock } from '../support/clock.ts';
import { secureRandomBytes } from '../support/random.ts';
import { MatchWorker } from './match-worker.ts';

function pacer(sliceMs: number): () => Promise<void> {
  const turns = new TurnPacer(sliceMs);
  return () => turns.turn();
}

/**
 * Builds one pool of match workers on this thread: its own Redis connections, the bot client, the
 * runner, and (unless `matchmaking` is false) the scheduler.
 */
export async function startMatchPool(config: Config, logger: Logger, { matchmaking = true } = {}) {
  const outages = new RedisOutageLog(logger);
  const workerRedis = await connectedToRedis7(outages.watch(createRedis(config.redis.url, 'worker')));
  const storeRedis = await connected(outages.watch(createRedis(config.redis.url, 'worker')));
  const stores = redisStores(storeRedis, config.redis.prefix);
  // BullMQ defines its scripts on the connection it is given, and ioredis copies every script onto
  // each pipeline it builds: on the store's connection that would tax every store read.
  const queue = new BullMatchQueue(
    workerRedis,
    config.redis.prefix,
    redisErrorListener(outages, logger, 'match queue error'),
  );
  const client = new BotClient({
    allowPrivateAddresses: config.allowPrivateBotUrls,
    dnsServers: config.botDnsServers,
  });
  const pullStore = new RedisPullStore(storeRedis, config.redis.prefix);
  const pull = (botId: string): Player =>
    new PullPlayer(botId, { pull: pullStore, stores, clock: systemClock });
  const runner = new MatchRunner({
    stores,
    clock: systemClock,
    playerFor: playersFor(client, pull),
    rate: eloRule(config.rating),
    logger,
    announceStart: (match) => announceStart(pullStore, match),
    pauses: config.matchmaking.pauses,
    ...(config.workers.turnSliceMs > 0 ? { pace: pacer(config.workers.turnSliceMs) } : {}),
  });
  const tournaments = new TournamentProgress({
    stores,
    tournaments: stores.tournaments,
    rounds: new RoundMaker({
      queue,
      clock: systemClock,
      random: secureRandomBytes,
      onEnqueueFailure: (matchId, error) =>
        logger.warn({ err: error, matchId }, 'tournament match stored but not queued yet'),
    }),
    clock: systemClock,
    onError: (tournamentId, error) => logger.warn({ err: error, tournamentId }, 'tournament sweep failed'),
  });
  const challenges = new ChallengeService({ stores, queue, clock: systemClock, logger });
  const worker = new MatchWorker({
    connection: workerRedis,
    prefix: config.redis.prefix,
    concurrency: config.workers.concurrency,
    runner,
    stores,
    queue,
    clock: systemClock,
    logger,
    outages,
    lockDurationMs: config.workers.lockDurationMs,
    challengeWaitMs: config.workers.challengeWaitMs,
    afterMatch: (matchId) => tournaments.afterMatch(matchId),
    expireChallenge: async (matchId) => {
      await challenges.expire(matchId);
    },
    reconcileAlso: async () => {
      await tournaments.sweep();
      await challenges.expireOverdue();
    },
  });
  const scheduler = new ArenaScheduler({
    connection: workerRedis,
    config,
    stores,
    pull: pullStore,
    matches: new MatchService({
      stores,
      queue,
      clock: systemClock,
      random: secureRandomBytes,
      limits: config.limits,
    }),
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
      await stores.close();
      await storeRedis.quit();
      await workerRedis.quit();
    },
  };
}
