import type { RedisClient } from '../connections/redis-connection.ts';
import {
  type StreamEntry,
  StreamReader,
  type StreamWaits,
  trimmedPast,
} from '../connections/stream-waits.ts';
import type { MatchEvent } from '../model/live-events.ts';
import type { MatchEventReader, MatchEventStore } from '../store/match-event-store.ts';
import type { StoreKeys } from './keys.ts';
import { decodeMatchEvent } from './match-event-codec.ts';

/**
 * Matches' live events on Redis. Waits go through the `StreamWaits` of the pull store, so a
 * spectator's stream is one more wait on the process' one subscriber, next to every bot's event
 * stream and long poll; reads, waiting or not, use the main connection.
 *
 * @example
 * const reader = events.openReader(signal);
 * const next = await reader.read(matchId, lastId, 15_000);
 */
export class RedisMatchEvents implements MatchEventStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
    private readonly waits: StreamWaits,
  ) {}

  openReader(signal: AbortSignal): MatchEventReader {
    return new StreamReader({
      redis: this.redis,
      waits: this.waits,
      keyOf: this.keys.matchEvents,
      decode: toEvents,
      signal,
    });
  }

  trimmedPast(matchId: string, eventId: string): Promise<boolean> {
    return trimmedPast(this.redis, this.keys.matchEvents(matchId), eventId);
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
