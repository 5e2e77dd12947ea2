/**
 * A match's live events, for spectators: a Redis stream per match (`keys.matchEvents`) that the
 * arena's own writes fill, in the same script as what they record, so the stream never tells of
 * a move, a turn or a result that is not stored:
 *
 * - `move`: each ply, written by the move-append script (APPEND_MOVES) with the turn that follows it;
 * - `turn`: a turn whose clock starts with no move before it in the run (a match's first turn, or
 *   the turn a resumed match restarts), written by ANNOUNCE_TURN;
 * - `finished`: the result, written by the finish script, which also leaves it alone in the stream
 *   and gives the stream a short TTL (MATCH_EVENTS_TTL_SECONDS).
 *
 * The data are storage shapes (epoch ms, banks), not wire documents: src/arena turns them into
 * the event stream's documents. Nothing private is stored: the result is its public view.
 */
import type { Color, MatchRatings, MatchResult, MoveRecord } from './records.ts';

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
  /**
   * The plies the match recorded: a spectator whose last event is older has missed moves the end
   * trimmed away, and is sent the state afresh. Absent from entries written before it was kept.
   */
  readonly plies?: number;
}

export type MatchEvent =
  | { readonly id: string; readonly type: 'turn'; readonly turn: LiveTurn }
  | { readonly id: string; readonly type: 'move'; readonly move: MoveRecord; readonly turn: LiveTurn }
  | { readonly id: string; readonly type: 'finished'; readonly finish: LiveFinish };

/** The turn an event tells of (the one a `move` leads to), or null for `finished`. */
export function turnOf(event: MatchEvent): LiveTurn | null {
  return event.type === 'finished' ? null : event.turn;
}
