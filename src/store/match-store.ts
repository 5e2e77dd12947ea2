import type { LiveTurn } from '../model/live-events.ts';
import type { PausePolicy } from '../model/pause.ts';
import type {
  DeclineReason,
  MatchRecord,
  MatchResult,
  MatchStatus,
  MoveRecord,
  Page,
  RatingRule,
} from '../model/records.ts';
import type { BotEventType } from './pull-store.ts';

/** A stored record that does not read back (moves that do not replay, say): no retry reads it better. */
export class CorruptRecordError extends Error {
  override readonly name: string = 'CorruptRecordError';
}

export interface MatchQuery {
  readonly botId?: string;
  readonly status?: MatchStatus;
  readonly limit: number;
  readonly cursor?: string;
}

/** An event for one bot's stream, written in the same atomic step as what it tells. */
export interface BotAnnouncement {
  readonly botId: string;
  readonly type: BotEventType;
  /** The event's JSON. */
  readonly data: string;
}

export interface NewMatchOptions {
  /** Told in the same write (a pending challenge's `challenge` event to its target). */
  readonly announce?: BotAnnouncement;
  /** The most challenges the bots of the match's `challengerOwner` may have active (this one not counted). */
  readonly maxChallengesByOwner?: number;
  /** The most challenges its maker may have queued or running (this one not counted). */
  readonly maxActiveChallenges?: number;
  /** The most challenges aimed at its opponent that may be queued or running (this one not counted). */
  readonly maxChallengesAgainst?: number;
  /** Of those, the most from the match's `origin` (this one not counted); ignored without one. */
  readonly maxChallengesAgainstFromOrigin?: number;
}

/** What `createMatch` did: stored the match (or found it stored: a resend), or why it refused. */
export type NewMatchOutcome =
  | 'created'
  | 'too-many-active'
  | 'opponent-busy'
  | 'opponent-busy-from-origin'
  | 'owner-busy'
  | 'bot-retired';

/** What `createMatches` did: stored them all, or why it stored none. */
export type NewMatchesOutcome = 'created' | 'exists' | 'bot-retired';

/** The bot that created a match with its token (a challenge), or null for the arena's own. */
export function challengerOf(match: Pick<MatchRecord, 'createdBy'>): string | null {
  return match.createdBy.startsWith('bot_') ? match.createdBy : null;
}

/** The bot a challenge is aimed at: the one of its players that did not make it. */
export function challengedOf(match: Pick<MatchRecord, 'black' | 'white'>, challenger: string): string {
  return match.black.id === challenger ? match.white.id : match.black.id;
}

/** Who appends a ply: a run of a match (see `MatchStore.appendMove`). */
export interface MoveRun {
  readonly id: string;
  /** True when this run recorded the ply before this one. */
  readonly follows: boolean;
}

/** What `getMatchWithRatings` reads: the match's own record and its players' current ratings. */
export interface MatchWithRatings {
  readonly match: MatchRecord;
  readonly moves: MoveRecord[];
  readonly ratings: { readonly black: number | null; readonly white: number | null };
}

/** What ends a pending challenge: its target's answer, or its time running out. */
export type ChallengeAnswer =
  | { readonly kind: 'accept' }
  | { readonly kind: 'decline'; readonly reason: DeclineReason }
  | { readonly kind: 'expire' };

/** What answering did: the match as it now is, or why nothing changed. */
export type ChallengeAnswerOutcome =
  | { readonly answered: true; readonly match: MatchRecord }
  | { readonly answered: false; readonly match: MatchRecord | null };

/**
 * Matches: their records and moves, the caps on the ones active, and their ends. Every method that
 * touches several keys is atomic.
 */
export interface MatchStore {
  /**
   * Stores a new queued (or pending) match. A challenge (a match created by a bot) counts against
   * its creator and its opponent until it ends; with `maxActiveChallenges` it is stored only while
   * the creator has fewer challenges active than that, atomically (else `too-many-active`), and
   * with `maxChallengesAgainst` only while fewer are aimed at the opponent (else `opponent-busy`).
   * Refused (`bot-retired`) when one of its bots has retired since the caller read it.
   */
  createMatch(match: MatchRecord, options?: NewMatchOptions): Promise<NewMatchOutcome>;
  /**
   * Stores new queued matches and the colour balance they change (see `RatingStore.colorBalances`),
   * all or none, in one atomic write: the games the arena makes together (a paired game's two).
   * Nothing is written when one of them exists already (`exists`: a resend) or one of their bots has
   * retired (`bot-retired`).
   */
  createMatches(
    matches: readonly MatchRecord[],
    colorBalance: ReadonlyMap<string, number>,
  ): Promise<NewMatchesOutcome>;
  getMatch(id: string): Promise<MatchRecord | null>;
  /** Throws `CorruptRecordError` when the stored moves do not replay. */
  getMoves(id: string): Promise<MoveRecord[]>;
  /**
   * A match, its moves and both players' current ratings (`null` for a bot with no record); null
   * when there is no such match. One round trip once this store has read the match's players
   * (they never change), two the first time.
   */
  getMatchWithRatings(id: string): Promise<MatchWithRatings | null>;
  listMatches(query: MatchQuery): Promise<Page<MatchRecord>>;
  /** Ids of matches in a status, oldest first (for the workers' reconciler). */
  matchIdsInStatus(status: MatchStatus, limit: number): Promise<string[]>;
  /** Answers a pending challenge once (see redis/challenge-answers.ts). */
  answerChallenge(id: string, answer: ChallengeAnswer, now: number): Promise<ChallengeAnswerOutcome>;
  /**
   * Marks a queued match running (a running match, resumed after a worker died, stays running).
   * `null` when there is no such match.
   */
  startMatch(id: string, now: number): Promise<MatchRecord | null>;
  /**
   * Records the next ply of a running match, for `run` (one worker's pass over the match). With
   * `run.follows`, the ply before must be one this run recorded: a run may send a ply before it
   * hears the one before was stored. False when the ply is taken, its predecessor is not the
   * run's, or the match is not running. With `next` (the turn after the move), spectators hear
   * of both on the match's live event stream, in the same write.
   */
  appendMove(id: string, move: MoveRecord, run: MoveRun, next?: LiveTurn): Promise<boolean>;
  /**
   * Tells spectators of a turn whose clock starts with no move before it in this run (the first
   * turn, or the turn a resumed match restarts); a move's `next` tells of the turns after it.
   * Nothing happens once the match is not running.
   */
  announceTurn(id: string, turn: LiveTurn): Promise<void>;
  /**
   * Ends a match with its result exactly once, updating both bots' records and ratings with `rate`
   * when it is rated (and not aborted). False when the match had already ended.
   */
  finishMatch(
    id: string,
    result: MatchResult,
    now: number,
    rate: RatingRule,
    pauses?: PausePolicy,
  ): Promise<boolean>;
  /** How many queued or running matches each bot has. */
  activeMatchCounts(ids: readonly string[]): Promise<number[]>;
  /**
   * How many queued or running matches the arena made (matchmaking's, tournaments', the admin's)
   * each bot has: challenges, which anyone may aim at a bot, are not counted.
   */
  arenaMatchCounts(ids: readonly string[]): Promise<number[]>;
}
