import { duplicateClient } from '../../src/connections/redis-connection.ts';
import type { MatchEvent } from '../../src/model/live-events.ts';
import { decodeMatchEvent } from '../../src/redis/match-event-codec.ts';
import type { Harness } from './harness.ts';

/**
 * Waits on match `id`'s live event stream (a blocking XREAD on a connection of its own: woken by
 * the append, never polling) until `done` says an event is the one awaited. Reads the stream from
 * its start, so an event appended before the call counts too (a stream keeps a whole game).
 * Rejects after `timeoutMs`.
 */
export async function matchEvent(
  h: Harness,
  id: string,
  done: (event: MatchEvent) => boolean,
  timeoutMs = 30_000,
): Promise<MatchEvent> {
  const reader = duplicateClient(h.redis, {
    commandTimeout: undefined,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
  });
  const key = h.stores.keys.matchEvents(id);
  const until = performance.now() + timeoutMs;
  try {
    for (let after = '0-0'; ; ) {
      const left = Math.floor(until - performance.now());
      if (left <= 0) throw new Error(`match ${id}: the awaited event did not come within ${timeoutMs} ms`);
      const read = await reader.xread('COUNT', 100, 'BLOCK', left, 'STREAMS', key, after);
      for (const [entryId, fields] of read?.[0]?.[1] ?? []) {
        after = entryId;
        const event = decodeMatchEvent(entryId, fields);
        if (event !== null && done(event)) return event;
      }
    }
  } finally {
    reader.disconnect();
  }
}

/** Resolves once match `id` has ended (its `finished` event). */
export async function matchEnded(h: Harness, id: string, timeoutMs?: number): Promise<void> {
  await matchEvent(h, id, (event) => event.type === 'finished', timeoutMs);
}

/** Resolves once every match of `ids` has ended. */
export async function matchesEnded(h: Harness, ids: readonly string[], timeoutMs?: number): Promise<void> {
  await Promise.all(ids.map((id) => matchEnded(h, id, timeoutMs)));
}

/** Resolves once match `id` has recorded ply `ply` (or ended). */
export async function pliesPlayed(h: Harness, id: string, ply: number, timeoutMs?: number): Promise<void> {
  await matchEvent(
    h,
    id,
    (event) => event.type === 'finished' || (event.type === 'move' && event.move.ply >= ply),
    timeoutMs,
  );
}
