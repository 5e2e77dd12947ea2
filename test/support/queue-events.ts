import { QueueEvents } from 'bullmq';
import { bullPrefix } from '../../src/config.ts';
import { duplicateClient } from '../../src/connections/redis-connection.ts';
import { MATCH_QUEUE_NAME } from '../../src/queue/match-queue.ts';
import type { Harness } from './harness.ts';

/**
 * The events of the arena's queue `queueName` on the harness' prefix, ready to hear them (as
 * BullMQ's own tests wait on `QueueEvents`, not on polls). Close it in `afterAll`.
 */
export async function queueEvents(h: Harness, queueName: string): Promise<QueueEvents> {
  const events = new QueueEvents(queueName, {
    // Its own blocking connection: without the API connection's 2 s command timeout, which would
    // cut every blocking read of events short.
    connection: duplicateClient(h.redis, {
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
      commandTimeout: undefined,
    }),
    prefix: bullPrefix(h.prefix),
  });
  await events.waitUntilReady();
  return events;
}

/** The match queue's events (see `queueEvents`). */
export function matchQueueEvents(h: Harness): Promise<QueueEvents> {
  return queueEvents(h, MATCH_QUEUE_NAME);
}

/**
 * Resolves when the job of match `id` has completed, on whichever worker; rejects if it failed
 * or `timeoutMs` passed first. A job handed back on SIGTERM has not completed.
 */
export async function matchJobDone(
  h: Harness,
  events: QueueEvents,
  id: string,
  timeoutMs: number,
): Promise<void> {
  const job = await h.queue.queue.getJob(id);
  if (!job) throw new Error(`no job for match ${id}`);
  await job.waitUntilFinished(events, timeoutMs);
}

/**
 * Resolves once `holds` answers true: asked now, then after each job of `events`' queue that
 * completes (for the match queue, the moment a match's end, and what follows it, such as a
 * tournament's next round, is written). Woken by the queue's events, never polling; a failed look
 * is retried at the next job. One look at a time (jobs that complete during one ask for one more
 * after it), so none is still running once this resolves: a request left in flight could meet the
 * harness closing its connections.
 */
export function holdsAfterJobs(events: QueueEvents, holds: () => Promise<boolean>): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    let looking = false;
    let lookAgain = false;
    const look = async () => {
      if (done) return;
      if (looking) {
        lookAgain = true;
        return;
      }
      looking = true;
      do {
        lookAgain = false;
        if (await holds().catch(() => false)) {
          done = true;
          events.off('completed', look);
          resolve();
        }
      } while (lookAgain && !done);
      looking = false;
    };
    events.on('completed', look);
    void look();
  });
}
