import { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { sweepIdleGuests } from '../arena/guests.ts';
import { ARENA_OPENINGS, type MatchService } from '../arena/matches.ts';
import type { EventsTick, ScheduledEvents } from '../arena/scheduled-events.ts';
import { bullPrefix, type Config } from '../config.ts';
import { closeWithin } from '../connections/close-within.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import {
  listenToBullWorker,
  type RedisOutageLog,
  redisErrorListener,
} from '../connections/redis-connection.ts';
import { ConflictError } from '../model/errors.ts';
import { operatorMarks } from '../model/operator-marks.ts';
import { isPausedAt } from '../model/pause.ts';
import { inSlowPool, type MatchRecord } from '../model/records.ts';
import type { BotEventStore } from '../store/pull-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock } from '../support/clock.ts';
import { type FitSummary, recomputeInThread } from './fit-thread.ts';
import { pairBots } from './pairing.ts';

export const SCHEDULE_QUEUE_NAME = 'schedules';

export interface SchedulerDeps {
  /** A connection with `maxRetriesPerRequest: null` (BullMQ workers need it). */
  readonly connection: RedisClient;
  readonly config: Config;
  readonly stores: Pick<Stores, 'bots' | 'guests' | 'locks' | 'matches' | 'ratings'>;
  /** Where a pull bot's presence is (matchmaking pairs it only while it listens). */
  readonly pull: Pick<BotEventStore, 'isOnline'>;
  readonly matches: MatchService;
  /** The arena's scheduled events (EVENTS), looked at every EVENTS_TICK_MS. */
  readonly events: ScheduledEvents;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger: Logger;
  /** Where lost Redis connections are logged, once per outage. */
  readonly outages?: RedisOutageLog;
}

/** Longer than any round takes; a process that dies holding the lock frees it after this. */
const MATCHMAKING_LOCK_MS = 60_000;
/** Longer than a look at the schedule takes (a few reads and writes per series). */
const EVENTS_LOCK_MS = 30_000;

/**
 * The arena's recurring jobs, as BullMQ job schedulers: matchmaking (when enabled), scheduled
 * events and timed starts, the Bradley–Terry recomputation and the sweep of idle guests. Every worker process starts one;
 * `upsertJobScheduler` is idempotent and each scheduled run is processed by one worker; a lock
 * keeps overlapping rounds apart.
 */
export class ArenaScheduler {
  readonly queue: Queue;
  private worker: Worker | undefined;
  /** Aborted by `close`: a fit still running in its thread is ended, not waited for. */
  private readonly closing = new AbortController();

  constructor(private readonly deps: SchedulerDeps) {
    this.queue = new Queue(SCHEDULE_QUEUE_NAME, {
      connection: deps.connection,
      prefix: bullPrefix(deps.config.redis.prefix),
      defaultJobOptions: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
      // Nobody listens to these rounds' events: a short stream, not BullMQ's 10,000.
      streams: { events: { maxLen: 100 } },
    });
    this.queue.on('error', redisErrorListener(deps.outages, deps.logger, 'scheduler queue error'));
  }

  async start(): Promise<void> {
    const { config } = this.deps;
    if (config.matchmaking.enabled) {
      await this.queue.upsertJobScheduler(
        'matchmaking',
        { every: config.matchmaking.intervalMs },
        { name: 'matchmake' },
      );
    } else {
      await this.queue.removeJobScheduler('matchmaking');
    }
    // Always: besides EVENTS' series, the admin's tournaments may name a start time.
    await this.queue.upsertJobScheduler('events', { every: config.events.tickMs }, { name: 'events' });
    await this.queue.upsertJobScheduler(
      'strength',
      { every: config.strengthIntervalMs },
      { name: 'strength' },
    );
    await this.queue.upsertJobScheduler(
      'guests',
      { every: config.guests.sweepIntervalMs },
      { name: 'sweep-guests' },
    );
    this.worker = new Worker(
      SCHEDULE_QUEUE_NAME,
      async (job) => {
        if (job.name === 'matchmake') return this.matchmake();
        if (job.name === 'events') return this.runEvents();
        if (job.name === 'sweep-guests') return this.sweepGuests();
        return this.recomputeStrength();
      },
      { connection: this.deps.connection, prefix: bullPrefix(config.redis.prefix), concurrency: 1 },
    );
    listenToBullWorker(this.worker, this.deps.outages, this.deps.logger, 'scheduler error');
    // Started means connected, its blocking connection too (as the match worker's: worker-pool.ts).
    await this.worker.waitUntilReady();
    // The next events exist from the start, not from the first tick (which may wait out `every`).
    this.runEvents().catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, 'scheduled events: the first look failed'),
    );
  }

  /**
   * One round of matchmaking; returns the ids of the matches it created (under balanced openings,
   * each pairing's two matches in a row: the pairing's colours, then swapped). Rounds of several
   * worker processes may overlap (BullMQ schedules the next one when a round starts): one at a time
   * holds the lock, so no two read the same free bots and pair one past its cap; the other skips its
   * turn.
   */
  async matchmake(): Promise<string[]> {
    const release = await this.deps.stores.locks.tryLock('matchmaking', MATCHMAKING_LOCK_MS);
    if (release === null) return [];
    try {
      const created = await this.matchmakeRound('arena');
      if (this.deps.config.slowPool.enabled) created.push(...(await this.matchmakeRound('slow')));
      return created;
    } finally {
      await release();
    }
  }

  /**
   * One look at the scheduled events (see ScheduledEvents): under a lock, so that two processes do
   * not both read an event missing and both create it; null when another process holds the lock.
   */
  async runEvents(): Promise<EventsTick | null> {
    const release = await this.deps.stores.locks.tryLock('events', EVENTS_LOCK_MS);
    if (release === null) return null;
    try {
      const tick = await this.deps.events.tick();
      for (const { id, outcome } of tick.due)
        this.deps.logger.info({ tournamentId: id, outcome }, 'scheduled event');
      return tick;
    } finally {
      await release();
    }
  }

  /**
   * One round of a pool: the arena's (every bot that consents to rated play) or the slow pool (the
   * bots that opted in, rated apart at the slow time control).
   */
  private async matchmakeRound(pool: 'arena' | 'slow'): Promise<string[]> {
    const { stores, pull, config } = this.deps;
    const slow = pool === 'slow';
    // Guests are off the active list already; they are people, never paired by the arena.
    const now = this.deps.clock.now();
    // A bot that does not consent to rated play (ratedPlay false) plays only what it accepts.
    const bots = (await stores.bots.activeBots()).filter(
      (bot) =>
        bot.ratedPlay && !isPausedAt(bot.paused, now) && !bot.guest && (!slow || bot.slowPool === true),
    );
    // Push and house bots are always there to play; a pull bot only while it listens. In the slow
    // pool opting in is the consent: an agent playing through /mcp holds no event stream.
    const online = await Promise.all(
      bots.map((bot) => (!slow && bot.url === null && bot.house === null ? pull.isOnline(bot.id) : true)),
    );
    const eligible = bots.filter((_, i) => online[i]);
    const [active, balances] = await Promise.all([
      // The arena's matches only: challenges aimed at a bot must not keep it from rated games.
      stores.matches.arenaMatchCounts(eligible.map((bot) => bot.id)),
      stores.ratings.colorBalances(eligible.map((bot) => bot.id)),
    ]);
    // Paired by the rating of the pool they play in.
    const candidates = eligible
      .map((bot) => (slow ? inSlowPool(bot) : bot))
      .map((bot, i) => ({
        id: bot.id,
        rating: bot.rating,
        ratedGames: bot.ratedGames,
        faultStreak: bot.consecutiveFaults,
        capacity: Math.max(0, config.matchmaking.maxConcurrentPerBot - (active[i] ?? 0)),
        colorBalance: balances[i] ?? 0,
        house: bot.house !== null,
        operatorMarks: operatorMarks(bot),
        ...(bot.owner === null ? {} : { owner: bot.owner.id }),
      }));
    const paired = config.matchmaking.openings === 'balanced';
    const matchesPerPair = paired ? 2 : 1;
    const pairs = pairBots(
      candidates,
      {
        ...config.matchmaking,
        sameOperator: config.sameOperatorGames,
        maxPairs: Math.floor(config.matchmaking.maxNewMatches / matchesPerPair),
        matchesPerPair,
      },
      this.deps.random,
    );
    const created: string[] = [];
    for (const pair of pairs) {
      // A paired game: the same balanced opening twice, colours swapped, so that neither the colour
      // nor the opening favours either bot over the two games (their colour balance is unchanged).
      // Both are stored together or not at all, with the colour balance they change.
      const opening = paired ? this.drawOpening() : undefined;
      const games = paired ? [pair, { black: pair.white, white: pair.black }] : [pair];
      const balance = new Map<string, number>();
      for (const { black, white } of games) {
        balance.set(black, (balance.get(black) ?? 0) + 1);
        balance.set(white, (balance.get(white) ?? 0) - 1);
      }
      let matches: MatchRecord[];
      try {
        matches = await this.deps.matches.createTogether(
          { kind: 'admin' },
          games.map(({ black, white }) => ({
            black,
            white,
            rated: true,
            ...(opening === undefined ? {} : { opening }),
            ...(slow ? { pool: 'slow' as const } : {}),
          })),
          balance,
        );
      } catch (error) {
        // A bot of the pair retired since the round read it: the other pairs are still made.
        if (!(error instanceof ConflictError && error.code === 'bots/retired')) throw error;
        this.deps.logger.info({ pair }, 'matchmaking skipped a pair: one of its bots retired');
        continue;
      }
      created.push(...matches.map((match) => match.id));
    }
    if (created.length > 0) this.deps.logger.info({ matches: created.length, pool }, 'matchmaking round');
    return created;
  }

  /**
   * Retires the guests idle for GUEST_TTL_HOURS (see sweepIdleGuests); answers their ids. `now`
   * defaults to the clock's.
   */
  async sweepGuests(now = this.deps.clock.now()): Promise<string[]> {
    const retired = await sweepIdleGuests(this.deps.stores, { now, ttlMs: this.deps.config.guests.ttlMs });
    if (retired.length > 0) this.deps.logger.info({ guests: retired.length }, 'idle guests retired');
    return retired;
  }

  /** A balanced opening drawn with the injected random source, every one equally likely. */
  private drawOpening(): string {
    const index = Math.floor(this.deps.random() * ARENA_OPENINGS.length);
    return ARENA_OPENINGS[Math.min(index, ARENA_OPENINGS.length - 1)]!.id;
  }

  /**
   * Fits Bradley–Terry over every rated result, anchored to the mean Elo of the bots it rates and
   * started from the last fit's strengths. All of it runs in a worker thread with its own Redis
   * connection (to `config.redis`, where the composition root put the store): reading the tallies
   * per pairing, fitting, saving. This process' event loop only awaits the thread's summary, so it
   * stays free for the matches it plays. Closing the scheduler ends a fit in progress.
   */
  async recomputeStrength(): Promise<FitSummary> {
    const { config, clock, logger } = this.deps;
    const { threadId: _, ...summary } = await recomputeInThread(
      { redis: { target: config.redis.target, prefix: config.redis.prefix }, computedAt: clock.now() },
      this.closing.signal,
    );
    logger.debug(summary, 'strengths recomputed');
    return summary;
  }

  async close(): Promise<void> {
    this.closing.abort(new Error('the scheduler is closing'));
    if (this.worker !== undefined)
      await closeWithin(this.worker, SCHEDULER_CLOSE_MS, this.deps.logger, 'the scheduler');
    await closeWithin(this.queue, SCHEDULER_CLOSE_MS, this.deps.logger, "the scheduler's queue");
  }
}

/** How long closing waits for the scheduler's worker before it disconnects it. */
const SCHEDULER_CLOSE_MS = 5000;
