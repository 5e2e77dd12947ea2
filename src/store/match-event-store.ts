import type { MatchEvent } from '../model/live-events.ts';

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
