/**
 * A match's live events as Redis stream entries (`type`, `data`), and how long the stream is kept:
 * the writes of the move-append, turn and finish scripts, and the spectators' reads.
 */
import type { LiveFinish, LiveTurn, MatchEvent } from '../model/live-events.ts';
import type { MoveRecord } from '../model/records.ts';

/** How many events a match's stream keeps (trimmed approximately): a whole game and its turns. */
export const MATCH_EVENTS_KEPT = 200;
/**
 * How long a finished match's stream (its `finished` event alone) is kept: long enough for a
 * spectator who lost its connection near the end to resume from it (a browser retries after 2 s);
 * later, the end is told from the match's record (see src/arena/spectate.ts). Short, as each such
 * stream costs about 4.8 kB while kept (Redis 7.0 allocates a stream's node whole; docs/storage.md).
 */
export const MATCH_EVENTS_TTL_SECONDS = 20;

/** A `move` entry's data: the move and the turn after it. */
export function encodeMoveEvent(move: MoveRecord, turn: LiveTurn): string {
  return JSON.stringify({ move, turn });
}

/** A `turn` entry's data. */
export function encodeTurnEvent(turn: LiveTurn): string {
  return JSON.stringify({ turn });
}

/** A `finished` entry's data. */
export function encodeFinishEvent(finish: LiveFinish): string {
  return JSON.stringify({ finish });
}

/** A stream entry's fields (`type`, `data`) as an event; null for a type this code does not know. */
export function decodeMatchEvent(id: string, fields: readonly string[]): MatchEvent | null {
  const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
  const type = field('type');
  const data = JSON.parse(field('data') || '{}');
  if (type === 'move') return { id, type, move: data.move, turn: data.turn };
  if (type === 'turn') return { id, type, turn: data.turn };
  if (type === 'finished') return { id, type, finish: data.finish };
  return null;
}
