/**
 * A match's live events, for spectators: a Redis stream per match (`keys.matchEvents`) that the
 * arena's own writes fill, in the same script as what they record, so the stream never tells of
 * a move, a turn or a result that is not stored:
 *
 * - `move`: each ply, written by the move-append script (APPEND_MOVES) with the turn that follows it;
 * - `turn`: a turn whose clock starts with no move before it in the run (a match's first turn, or
 *   the turn a resumed match restarts), written by ANNOUNCE_TURN;
 * - `finished`: the result, written by the finish script, which also gives the stream its TTL.
 *
 * The data are storage shapes (epoch ms, banks), not wire documents: src/arena turns them into
 * the event stream's documents. Nothing private is stored: the result is its public view.
 */
import type { Color, MatchRatings, MatchResult, MoveRecord } from './records.ts';

/** How many events a match's stream keeps (trimmed approximately): a whole game and its turns. */
export const MATCH_EVENTS_KEPT = 200;
/**
 * How long a finished match's stream is kept: long enough for a spectator who lost its connection
 * near the end to resume from it (a browser retries after 2 s); later, the end is told from the
 * match's record (see src/arena/spectate.ts). Short, as it is memory every finished match holds.
 */
export const MATCH_EVENTS_TTL_SECONDS = 120;

/** Where a match stands when a turn starts: what a spectator's clock needs. */
export interface LiveTurn {
  /** The ply to play. */
  readonly ply: number;
  /** The side to move; null once the game is over. */
  readonly toMove: Color | null;
  /**
   * When the side to move runs out of time (epoch ms), as the arena set it; null when no bot is
   * waited for (the game is over, or the arena plays the ply itself: a pass, an opening ply).
   */
  readonly deadline: number | null;
  /** What is left of each side's overage bank. */
  readonly banks: Readonly<Record<Color, number>>;
  /** Each side's latest answer time (null before its first). */
  readonly lastLatency: Readonly<Record<Color, number | null>>;
}

/** The end of a match as spectators hear of it: the result is the public view. */
export interface LiveFinish {
  readonly status: 'finished' | 'aborted';
  readonly result: MatchResult;
  readonly ratings: MatchRatings | null;
  readonly finishedAt: number;
}

export type MatchEvent =
  | { readonly id: string; readonly type: 'turn'; readonly turn: LiveTurn }
  | { readonly id: string; readonly type: 'move'; readonly move: MoveRecord; readonly turn: LiveTurn }
  | { readonly id: string; readonly type: 'finished'; readonly finish: LiveFinish };

/** The turn an event tells of (the one a `move` leads to), or null for `finished`. */
export function turnOf(event: MatchEvent): LiveTurn | null {
  return event.type === 'finished' ? null : event.turn;
}

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

/**
 * Waits on matches' event streams for one spectator: made by `MatchEventStore.openReader`,
 * closed by the spectator when it is done.
 */
export interface MatchEventReader {
  /**
   * The events of `matchId` after `afterId`, waiting up to `waitMs` for the first (no wait at 0);
   * `[]` when none came, or when the reader's signal aborted the wait.
   */
  read(matchId: string, afterId: string, waitMs: number): Promise<MatchEvent[]>;
  /** Ends the reader; a wait in progress answers `[]`. */
  close(): void;
  /**
   * True once a read can wait no more (the reader closed, its signal aborted, or the store closing
   * its waits): every read then answers `[]` at once, so a loop of reads must stop on it.
   */
  readonly ended: boolean;
}

/** Reads matches' live events; the arena's scripts write them (see the top of this file). */
export interface MatchEventStore {
  /**
   * A reader for one spectator, until `signal` aborts or it is closed. Its waits share the
   * process' one subscriber with every other wait: a spectator costs no connection.
   */
  openReader(signal: AbortSignal): MatchEventReader;
  /** The newest `count` events of a match, newest first. */
  recent(matchId: string, count: number): Promise<MatchEvent[]>;
  /** Whether the match's stream may have trimmed events that came after `eventId` (see `trimmedPast`). */
  trimmedPast(matchId: string, eventId: string): Promise<boolean>;
  /** Each match's newest event (null for none), in one round trip. */
  latest(matchIds: readonly string[]): Promise<(MatchEvent | null)[]>;
}
