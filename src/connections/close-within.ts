import { setTimeout as delay } from 'node:timers/promises';
import type { RedisClient } from './redis-connection.ts';

/**
 * Ends something gracefully (`end`: a QUIT, BullMQ's close) waiting at most `ms`, then `drop`s its
 * connections. After a cluster failover a graceful end may never come: a QUIT queued for the node
 * that died waits for it for good, and BullMQ waits for its blocking connection's `end`, which the
 * cluster client may never emit (test/connections/failover.test.ts). The late end is left to settle
 * (or not) behind, and so is the drop. Resolves to whether the end came in time.
 */
export async function endWithin(
  end: () => Promise<unknown>,
  drop: () => unknown,
  ms: number,
): Promise<boolean> {
  const ending = end();
  // Unref'd: an end that does come in time leaves no timer holding the process.
  const ended = await Promise.race([ending.then(() => true), delay(ms, false, { ref: false })]);
  if (ended) return true;
  ending.catch(() => {});
  // Not awaited: BullMQ's disconnect may wait on the same dead connection its close did.
  Promise.resolve()
    .then(drop)
    .catch(() => {});
  return false;
}

/** How long a connection's QUIT may take before the connection is dropped. */
const QUIT_MS = 2000;

/**
 * Quits a Redis connection (single or cluster), or drops it when the QUIT does not come back in
 * time, or cannot be sent (a connection without an offline queue while Redis is away refuses it).
 */
export async function quitWithin(client: RedisClient, ms = QUIT_MS): Promise<void> {
  await endWithin(
    () => client.quit().catch(() => client.disconnect()),
    () => client.disconnect(),
    ms,
  );
}

/**
 * Closes a BullMQ worker or queue within `ms`, else disconnects it and says so. A job a worker still
 * held is taken over by another worker once its lock expires, as after a crash.
 */
export async function closeWithin(
  closable: { close(): Promise<void>; disconnect(): Promise<void> },
  ms: number,
  logger: { warn(obj: object, msg: string): void },
  what: string,
): Promise<void> {
  if (
    await endWithin(
      () => closable.close(),
      () => closable.disconnect(),
      ms,
    )
  )
    return;
  logger.warn({ waitedMs: ms }, `${what} did not close in time: disconnected`);
}
