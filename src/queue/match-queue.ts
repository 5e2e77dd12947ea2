import { Queue } from 'bullmq';
import { bullPrefix } from '../config.ts';
import { endWithin } from '../connections/close-within.ts';
import type { RedisClient } from '../connections/redis-connection.ts';

/** Where new matches go to be played. */
export interface MatchQueue {
  /**
   * Queues a match; queuing the same match twice queues it once (the job id is the match id). A
   * challenge waits behind every match the arena made (matchmaking, tournaments, the admin's).
   */
  enqueue(matchId: string, kind?: 'challenge'): Promise<void>;
  /**
   * Has a worker expire a pending challenge `delayMs` from now, unless it was answered by then
   * (a job of its own, `expire-challenge`; once per match).
   */
  expireChallengeLater(matchId: string, delayMs: number): Promise<void>;
  /**
   * Queues every challenge that has waited `waitedMs` or more (by `now`) behind the arena's
   * matches as they are queued, behind those waiting now: under a steady backlog of the arena's own
   * matches a challenge would otherwise never start. Returns how many it moved.
   */
  promoteChallenges(waitedMs: number, now: number): Promise<number>;
  /** The queue's own metrics (job counts by state) in the Prometheus text format. */
  prometheusMetrics(): Promise<string>;
  close(): Promise<void>;
}

export const MATCH_QUEUE_NAME = 'matches';

/**
 * How many completed and failed jobs the queue keeps (the same for the queue's jobs and the
 * workers'): enough to look at recent ones and for `QueueEvents` waiters to find theirs, a bounded
 * cost whatever the number of matches played.
 */
export const COMPLETED_JOBS_KEPT = 100;
export const FAILED_JOBS_KEPT = 1000;
/** How many events the queue's event stream keeps (BullMQ's default is 10,000, ~100 bytes each). */
export const QUEUE_EVENTS_KEPT = 1000;

/** The most challenges one sweep moves up (the oldest); the next sweep goes on. */
const CHALLENGES_PROMOTED_AT_ONCE = 500;

/** The name of the job that expires a pending challenge (every other job plays its match). */
export const EXPIRE_CHALLENGE_JOB = 'expire-challenge';

export interface MatchJobData {
  readonly matchId: string;
}

/**
 * The BullMQ queue of matches. Jobs carry the match id only; the match record in the store is the
 * history, so finished jobs are trimmed to a few (a finished job costs ~1 kB of Redis, as much as
 * the whole match record) and the queue's event stream to what a listener needs to catch up.
 */
export class BullMatchQueue implements MatchQueue {
  readonly queue: Queue<MatchJobData>;

  /** `onError` hears the queue's connection errors (BullMQ prints them raw when nobody listens). */
  constructor(connection: RedisClient, prefix: string, onError: (error: Error) => void = () => {}) {
    this.queue = new Queue<MatchJobData>(MATCH_QUEUE_NAME, {
      connection,
      prefix: bullPrefix(prefix),
      streams: { events: { maxLen: QUEUE_EVENTS_KEPT } },
      defaultJobOptions: {
        attempts: 5,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { count: COMPLETED_JOBS_KEPT },
        removeOnFail: { count: FAILED_JOBS_KEPT },
      },
    });
    this.queue.on('error', onError);
  }

  async enqueue(matchId: string, kind?: 'challenge'): Promise<void> {
    // BullMQ takes a job without a priority first, then the lowest number: challenges (whose clocks
    // their makers choose, up to minutes a move) cannot hold rated matches back in the queue.
    await this.queue.add('play', { matchId }, { jobId: matchId, ...(kind ? { priority: 10 } : {}) });
  }

  async expireChallengeLater(matchId: string, delayMs: number): Promise<void> {
    await this.queue.add(EXPIRE_CHALLENGE_JOB, { matchId }, { jobId: `expire-${matchId}`, delay: delayMs });
  }

  async promoteChallenges(waitedMs: number, now: number): Promise<number> {
    // Oldest first: every challenge has the one priority, so the set keeps the order they came in.
    const jobs = await this.queue.getJobs(['prioritized'], 0, CHALLENGES_PROMOTED_AT_ONCE - 1, true);
    let promoted = 0;
    for (const job of jobs) {
      if (now - job.timestamp < waitedMs) break;
      // Priority 0 is the arena's matches' class: to the back of their line, first come first served.
      // A job that ended and was removed since the listing is skipped.
      const moved = await job.changePriority({ priority: 0 }).then(
        () => true,
        () => false,
      );
      if (moved) promoted++;
    }
    return promoted;
  }

  prometheusMetrics(): Promise<string> {
    return this.queue.exportPrometheusMetrics();
  }

  async close(): Promise<void> {
    await endWithin(
      () => this.queue.close(),
      () => this.queue.disconnect(),
      QUEUE_CLOSE_MS,
    );
  }
}

/** How long closing waits for BullMQ's queue before it drops its connections (see endWithin). */
const QUEUE_CLOSE_MS = 5000;
