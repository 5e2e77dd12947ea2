import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.ts';
import {
  decodeMatchEvent,
  type MatchEvent,
  type MatchEventReader,
  type MatchEventStore,
} from './match-events.ts';
import type { StreamEntry, StreamWaits, WaitHandle } from './stream-waits.ts';

/** The most events one read returns; a reader that gets this many reads again at once. */
const EVENTS_PER_READ = 100;

/**
 * Matches' live events on Redis. Waits go through the `StreamWaits` of the pull store, so a
 * spectator's stream is one more promise on the process' single blocking XREAD, next to every bot's
 * event stream and long poll; reads that do not wait use the main connection.
 *
 * @example
 * const reader = events.openReader(signal);
 * const next = await reader.read(matchId, lastId, 15_000);
 */
export class RedisMatchEvents implements MatchEventStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
    private readonly waits: StreamWaits,
  ) {}

  openReader(signal: AbortSignal): MatchEventReader {
    // No signal of its own: many readers are open at once, and a handle costs less.
    let closed = false;
    const waiting: WaitHandle = {};
    const ended = () => closed || signal.aborted;
    return {
      read: async (matchId, afterId, waitMs) => {
        if (ended()) return [];
        const stream = this.keys.matchEvents(matchId);
        if (waitMs > 0) return toEvents(await this.waits.wait(stream, afterId, waitMs, signal, waiting));
        try {
          const reply = await this.redis.xread('COUNT', EVENTS_PER_READ, 'STREAMS', stream, afterId);
          return toEvents(reply?.[0]?.[1] ?? []);
        } catch (error) {
          if (ended()) return [];
          throw error;
        }
      },
      close: () => {
        closed = true;
        waiting.cancel?.();
      },
    };
  }

  async recent(matchId: string, count: number): Promise<MatchEvent[]> {
    return toEvents(await this.redis.xrevrange(this.keys.matchEvents(matchId), '+', '-', 'COUNT', count));
  }

  async latest(matchIds: readonly string[]): Promise<(MatchEvent | null)[]> {
    if (matchIds.length === 0) return [];
    const read = this.redis.pipeline();
    for (const id of matchIds) read.xrevrange(this.keys.matchEvents(id), '+', '-', 'COUNT', 1);
    const replies = (await read.exec()) ?? [];
    return replies.map(([error, entries]) => {
      if (error) throw error;
      return toEvents(entries as StreamEntry[])[0] ?? null;
    });
  }
}

/** Stream entries as events, leaving out any of a type this code does not know. */
function toEvents(entries: readonly StreamEntry[]): MatchEvent[] {
  return entries.flatMap(([id, fields]) => decodeMatchEvent(id, fields) ?? []);
}
