import { type Job, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { bullPrefix } from '../config.ts';
import { closeWithin } from '../connections/close-within.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import { listenToBullWorker, type RedisOutageLog } from '../connections/redis-connection.ts';
import { abortedResult, queueClassOf } from '../model/records.ts';
import {
  COMPLETED_JOBS_KEPT,
  EXPIRE_CHALLENGE_JOB,
  FAILED_JOBS_KEPT,
  MATCH_QUEUE_NAME,
  type MatchJobData,
  type MatchQueue,
} from '../queue/match-queue.ts';
import { type MatchRunner, UnplayableMatchError } from '../runner/runner.ts';
import type { Stores } from '../store/store.ts';
import type { Clock } from '../support/clock.ts';

/**
 * How long a closing worker waits for BullMQ past the grace period (the runs cut at its end hand
 * their matches back in well under a second) before it disconnects it.
 */
const CLOSE_MARGIN_MS = 5000;

/** How long one worker's sweep of waiting challenges may hold the others off. */
const PROMOTION_LOCK_MS = 10_000;

export interface MatchWorkerOptions {
  /** A connection with `maxRetriesPerRequest: null`, as BullMQ workers need. */
  readonly connection: RedisClient;
  readonly prefix: string;
  readonly concurrency: number;
  readonly runner: MatchRunner;
  readonly stores: Pick<Stores, 'bots' | 'locks' | 'matches'>;
  readonly queue: MatchQueue;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where lost Redis connections are logged, once per outage. */
  readonly outages?: RedisOutageLog;
  /** How long a job's lock lasts without renewal; a dead worker's match is taken over after this. */
  readonly lockDurationMs?: number;
  /** How often queued matches without a job are queued again. */
  readonly reconcileEveryMs?: number;
  /**
   * How long a challenge waits behind the arena's matches before it is queued as they are (checked
   * at each reconcile); none: as long as they keep coming.
   */
  readonly challengeWaitMs?: number;
  /**
   * Runs once a match's job has ended it, inside the job: if it throws (or the worker dies first)
   * the job is retried, finds the match ended and runs it again. Tournaments pair their next round here.
   */
  readonly afterMatch?: (matchId: string) => Promise<void>;
  /** Runs with each reconcile (at start, then every `reconcileEveryMs`): the backstop of `afterMatch`. */
  readonly reconcileAlso?: () => Promise<void>;
  /** Ends a pending challenge whose time is up: the `expire-challenge` jobs of the queue. */
  readonly expireChallenge?: (matchId: string) => Promise<void>;
}

/**
 * A pool of matches played by one process. Several processes (or machines) against the same Redis
 * share the queue. Each job is one match (job id = match id); the runner is idempotent, so a retried
 * or taken-over job never records a ply or a result twice.
 */
export class MatchWorker {
  readonly worker: Worker<MatchJobData>;
  private readonly running = new Map<string, AbortController>();
  private reconcileTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: MatchWorkerOptions) {
    this.worker = new Worker<MatchJobData>(MATCH_QUEUE_NAME, (job, token) => this.process(job, token), {
      connection: options.connection,
      prefix: bullPrefix(options.prefix),
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: Math.max(1000, Math.floor((options.lockDurationMs ?? 30_000) / 2)),
      maxStalledCount: 10,
      removeOnComplete: { count: COMPLETED_JOBS_KEPT },
      removeOnFail: { count: FAILED_JOBS_KEPT },
    });
    this.worker.on('failed', (job, error) => void this.onFailed(job, error));
    listenToBullWorker(this.worker, options.outages, options.logger, 'match worker error');
    const every = options.reconcileEveryMs ?? 30_000;
    this.reconcileTimer = setInterval(() => void this.reconcile(), every);
    this.reconcileTimer.unref();
    this.firstReconcile = this.reconcile();
  }

  /** The reconcile the worker runs as it starts (matches queued again, challenges promoted): done. */
  readonly firstReconcile: Promise<void>;

  private async process(job: Job<MatchJobData>, token: string | undefined): Promise<string> {
    if (job.name === EXPIRE_CHALLENGE_JOB) {
      await this.options.expireChallenge?.(job.data.matchId);
      return 'expired';
    }
    const controller = new AbortController();
    this.running.set(job.id ?? job.data.matchId, controller);
    try {
      const end = await this.options.runner.play(job.data.matchId, controller.signal);
      if (end !== 'interrupted') {
        await this.options.afterMatch?.(job.data.matchId);
        return end;
      }
    } catch (error) {
      if (error instanceof UnplayableMatchError) return this.giveUp(error);
      if (!controller.signal.aborted) throw error;
    } finally {
      this.running.delete(job.id ?? job.data.matchId);
    }
    // Shutting down mid-match: hand the job back at once; the next worker resumes from the record.
    await job.moveToWait(token);
    throw new WaitingError();
  }

  /**
   * Fails the job of a match no attempt can play, at once (BullMQ retries any other error): the
   * runner has marked a stored one aborted, and a tournament waiting on it goes on.
   */
  private async giveUp(error: UnplayableMatchError): Promise<never> {
    this.options.logger.error(
      { err: error, matchId: error.matchId, why: error.why },
      'match cannot be played',
    );
    await this.options
      .afterMatch?.(error.matchId)
      .catch((cause) =>
        this.options.logger.warn({ err: cause }, 'after an unplayable match; the sweep retries'),
      );
    throw new UnrecoverableError(error.message);
  }

  /** A job that failed for good (the arena's own errors, every attempt spent) aborts its match. */
  private async onFailed(job: Job<MatchJobData> | undefined, error: Error): Promise<void> {
    if (!job || error instanceof WaitingError || error instanceof UnrecoverableError) return;
    if (job.attemptsMade < (job.opts.attempts ?? 1)) return;
    // A challenge that could not be expired stays pending; the reconcile's sweep expires it.
    if (job.name === EXPIRE_CHALLENGE_JOB) return;
    this.options.logger.error(
      { err: error, matchId: job.data.matchId },
      'match failed for good; aborting it',
    );
    await this.options.stores.matches
      .finishMatch(job.data.matchId, abortedResult(), this.options.clock.now(), () => {
        throw new Error('aborted matches are not rated');
      })
      .catch((cause) => this.options.logger.error({ err: cause }, 'could not abort the match'));
    await this.options
      .afterMatch?.(job.data.matchId)
      .catch((cause) =>
        this.options.logger.warn({ err: cause }, 'after an aborted match; the sweep retries'),
      );
  }

  /**
   * Queues again any match stored as queued whose job was lost (e.g. the queue was down when it was
   * created), and moves challenges that have waited `challengeWaitMs` into the arena's line.
   */
  async reconcile(): Promise<void> {
    try {
      const { stores, queue, challengeWaitMs, clock } = this.options;
      if (challengeWaitMs !== undefined) {
        // One sweep at a time across the workers: BullMQ moves a job already in the line to its
        // back again, so a second sweep working from the same list would undo the first's order.
        const release = await stores.locks.tryLock('challenge-promotion', PROMOTION_LOCK_MS);
        if (release !== null) {
          try {
            await queue.promoteChallenges(challengeWaitMs, clock.now());
          } finally {
            await release();
          }
        }
      }
      const ids = await stores.matches.matchIdsInStatus('queued', 500);
      // Each in its class, as it was first queued: a lost challenge must not come back ahead.
      const matches = await Promise.all(ids.map((id) => stores.matches.getMatch(id)));
      for (const match of matches) {
        if (match === null) continue;
        const players =
          match.createdBy === 'admin' ? [] : await stores.bots.getBots([match.black.id, match.white.id]);
        await queue.enqueue(match.id, queueClassOf(match, players));
      }
      await this.options.reconcileAlso?.();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'reconcile failed; will try again');
    }
  }

  /**
   * Stops taking matches, lets running ones finish for up to `graceMs`, then hands the rest back to
   * the queue (another worker resumes them from their recorded moves).
   */
  async close(graceMs: number): Promise<void> {
    clearInterval(this.reconcileTimer);
    const closing = closeWithin(
      this.worker,
      graceMs + CLOSE_MARGIN_MS,
      this.options.logger,
      'the match worker',
    );
    const timer = setTimeout(() => {
      for (const controller of this.running.values()) controller.abort(new Error('worker shutting down'));
    }, graceMs);
    try {
      await closing;
    } finally {
      clearTimeout(timer);
    }
  }
}
