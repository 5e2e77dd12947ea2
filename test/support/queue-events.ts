import { QueueEvents } from 'bullmq';
import { duplicateClient } from '../../src/connections/redis-connection.ts';
import { bullPrefix, MATCH_QUEUE_NAME } from '../../src/queue/match-queue.ts';
import type { Harness } from './harness.ts';

/**
 * The match queue's events on the harness' prefix, ready to hear them (as BullMQ's own tests wait
 * on `QueueEvents`, not on polls). Close it in `afterAll`.
 */
export async function matchQueueEvents(h: Harness): Promise<QueueEvents> {
  const events = new QueueEvents(MATCH_QUEUE_NAME, {
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
