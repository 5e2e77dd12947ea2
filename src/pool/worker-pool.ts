import type { Logger } from 'pino';
import { ChallengeService } from '../arena/challenges.ts';
import { MatchService } from '../arena/matches.ts';
import { ScheduledEvents } from '../arena/scheduled-events.ts';
import { SoloService } from '../arena/solo.ts';
import { TournamentProgress } from '../arena/tournament-progress.ts';
import { RoundMaker } from '../arena/tournament-rounds.ts';
import { TournamentService } from '../arena/tournaments.ts';
import { BotClient } from '../bot-client/index.ts';
import type { Config } from '../config.ts';
import type { RedisClient, RedisOutageLog } from '../connections/redis-connection.ts';
import { ArenaScheduler } from '../matchmaking/scheduler.ts';
import { eloRule } from '../model/rating-rule.ts';
import type { MatchQueue } from '../queue/match-queue.ts';
import { TurnPacer } from '../runner/pacer.ts';
import type { Player } from '../runner/player.ts';
import { playersFor } from '../runner/players.ts';
import { announceStart, PullPlayer } from '../runner/pull-player.ts';
import { MatchRunner } from '../runner/runner.ts';
import type { PullStore } from '../store/pull-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock } from '../support/clock.ts';
import { secureRandomBytes } from '../support/random.ts';
import { MatchWorker } from './match-worker.ts';

/** What a pool of match workers stands on: stores, queue and clock, made by its process' wiring. */
export interface WorkerPoolDeps {
  readonly stores: Stores;
  /** Pull bots' turns and events (pull bots are played through it). */
  readonly pull: PullStore;
  readonly queue: MatchQueue;
  readonly clock: Clock;
  readonly config: Config;
  readonly logger: Logger;
  /** A connection with `maxRetriesPerRequest: null`, as BullMQ's workers and schedulers need. */
  readonly connection: RedisClient;
  /** Where lost Redis connections are logged, once per outage. */
  readonly outages?: RedisOutageLog;
  /** Whether this pool runs the scheduler's jobs (matchmaking, fits, sweeps); true by default. */
  readonly matchmaking?: boolean;
}

export interface WorkerPool {
  readonly worker: MatchWorker;
  readonly scheduler: ArenaScheduler;
  /** Stops taking jobs, lets running matches finish for `config.shutdownGraceMs`, closes the client. */
  close(): Promise<void>;
}

/** What `createRunner` needs beyond a pool's: the client that calls push bots, and pauses to override. */
export interface RunnerDeps extends Pick<WorkerPoolDeps, 'stores' | 'pull' | 'clock' | 'config' | 'logger'> {
  readonly client: BotClient;
}

/**
 * The runner every match worker plays with: push bots through `client`, pull bots through the
 * pull store, house bots in-process, Elo from the configuration.
 */
export function createRunner({ stores, pull, clock, config, logger, client }: RunnerDeps): MatchRunner {
  const pullPlayer = (botId: string): Player => new PullPlayer(botId, { pull, clock });
  const sliceMs = config.workers.turnSliceMs;
  const turns = sliceMs > 0 ? new TurnPacer(sliceMs) : null;
  return new MatchRunner({
    stores,
    clock,
    playerFor: playersFor(client, pullPlayer),
    rate: eloRule(config.rating),
    logger,
    announceStart: (match) => announceStart(pull, match),
    pauses: config.matchmaking.pauses,
    ...(turns ? { pace: () => turns.turn() } : {}),
  });
}

/** The arena's scheduled events and the solo league's house entries, on the pool's stores and queue. */
export function scheduledEvents(
  deps: Pick<WorkerPoolDeps, 'stores' | 'clock' | 'config' | 'queue'> & { readonly rounds: RoundMaker },
): ScheduledEvents {
  const { stores, rounds, clock, config, queue } = deps;
  const tournaments = new TournamentService({
    stores,
    tournaments: stores.tournaments,
    rounds,
    clock,
    random: secureRandomBytes,
    limits: config.limits,
    sameOperatorGames: config.sameOperatorGames,
  });
  const soloLeague = new SoloService({
    stores,
    queue,
    clock,
    random: secureRandomBytes,
    limits: config.limits,
  });
  return new ScheduledEvents({
    tournaments,
    bots: stores.bots,
    clock,
    series: config.events.series,
    soloLeague,
  });
}

/**
 * One pool of match workers, wired the same in `npm start`, `npm run worker`, its threads and the
 * tests: the runner, the BullMQ worker, tournaments' next rounds, challenges' expiry, and (unless
 * `matchmaking` is false) the scheduler's jobs. The caller owns the stores, queue and connection.
 *
 * @example
 * const pool = await createWorkerPool({ stores, pull, queue, clock: systemClock, config, logger, connection });
 * await pool.close();
 */
export async function createWorkerPool(deps: WorkerPoolDeps): Promise<WorkerPool> {
  const { stores, pull, queue, clock, config, logger, connection, outages, matchmaking = true } = deps;
  const client = new BotClient({
    allowPrivateAddresses: config.allowPrivateBotUrls,
    dnsServers: config.botDnsServers,
  });
  const runner = createRunner({ stores, pull, clock, config, logger, client });
  const rounds = new RoundMaker({
    queue,
    clock,
    random: secureRandomBytes,
    onEnqueueFailure: (matchId, error) =>
      logger.warn({ err: error, matchId }, 'tournament match stored but not queued yet'),
  });
  const tournaments = new TournamentProgress({
    stores,
    tournaments: stores.tournaments,
    rounds,
    clock,
    onError: (tournamentId, error) => logger.warn({ err: error, tournamentId }, 'tournament sweep failed'),
  });
  const challenges = new ChallengeService({ stores, queue, clock, logger });
  const worker = new MatchWorker({
    connection,
    prefix: config.redis.prefix,
    concurrency: config.workers.concurrency,
    runner,
    stores,
    queue,
    clock,
    logger,
    ...(outages ? { outages } : {}),
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
    connection,
    config,
    stores,
    pull,
    matches: new MatchService({ stores, queue, clock, random: secureRandomBytes, limits: config.limits }),
    events: scheduledEvents({ stores, rounds, clock, config, queue }),
    clock,
    random: Math.random,
    logger,
    ...(outages ? { outages } : {}),
  });
  // Started means connected: BullMQ opens a worker's blocking connection itself, and one that came
  // up after the pool said it had started could end, in the log, an outage that had just begun.
  await worker.worker.waitUntilReady();
  if (matchmaking) await scheduler.start();
  return {
    worker,
    scheduler,
    async close() {
      if (matchmaking) await scheduler.close();
      await worker.close(config.shutdownGraceMs);
      await client.close();
    },
  };
}
