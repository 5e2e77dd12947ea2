import { duplicateClient } from '../../src/connections/redis-connection.ts';
import type { MatchEvent } from '../../src/model/live-events.ts';
import { decodeMatchEvent } from '../../src/redis/match-event-codec.ts';
import type { Harness } from './harness.ts';

/**
 * Waits on the stream at `key` (a blocking XREAD on a connection of its own: woken by the append,
 * never polling) until `done` says an entry, as `decode` reads it, is the one awaited. Reads the
 * stream from its start, so an entry appended before the call counts too. Rejects after `timeoutMs`.
 */
async function streamEntry<E>(
  h: Harness,
  key: string,
  decode: (entryId: string, fields: string[]) => E | null,
  done: (event: E) => boolean,
  timeoutMs: number,
): Promise<E> {
  const reader = duplicateClient(h.redis, {
    commandTimeout: undefined,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
  });
  const until = performance.now() + timeoutMs;
  try {
    for (let after = '0-0'; ; ) {
      const left = Math.floor(until - performance.now());
      if (left <= 0) throw new Error(`${key}: the awaited event did not come within ${timeoutMs} ms`);
      const read = await reader.xread('COUNT', 100, 'BLOCK', left, 'STREAMS', key, after);
      for (const [entryId, fields] of read?.[0]?.[1] ?? []) {
        after = entryId;
        const event = decode(entryId, fields);
        if (event !== null && done(event)) return event;
      }
    }
  } finally {
    reader.disconnect();
  }
}

/**
 * Waits on match `id`'s live event stream until `done` says an event is the one awaited (one
 * appended before the call counts too: a stream keeps a whole game). Rejects after `timeoutMs`.
 */
export function matchEvent(
  h: Harness,
  id: string,
  done: (event: MatchEvent) => boolean,
  timeoutMs = 30_000,
): Promise<MatchEvent> {
  return streamEntry(h, h.stores.keys.matchEvents(id), decodeMatchEvent, done, timeoutMs);
}

/** One event of a bot's stream (see BotEventStore): its type and its data, parsed. */
export interface BotStreamEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

const decodeBotEvent = (_entryId: string, fields: string[]): BotStreamEvent => {
  const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
  return { type: field('type'), data: JSON.parse(field('data') || '{}') };
};

/** Waits on bot `botId`'s event stream, as `matchEvent` waits on a match's. */
export function botEvent(
  h: Harness,
  botId: string,
  done: (event: BotStreamEvent) => boolean,
  timeoutMs = 30_000,
): Promise<BotStreamEvent> {
  return streamEntry(h, h.stores.keys.botEvents(botId), decodeBotEvent, done, timeoutMs);
}

/** Resolves once bot `botId` has heard `type` about match `matchId` on its event stream. */
export async function botHeard(h: Harness, botId: string, type: string, matchId: string): Promise<void> {
  await botEvent(h, botId, (event) => event.type === type && event.data.matchId === matchId);
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
