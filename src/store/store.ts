import type { TallyColumns } from '../rating/bradley-terry.ts';
import type { PausePolicy } from '../standings/pause.ts';
import type { BotAnnouncement } from './bot-events.ts';
import type { ChallengeAnswer, ChallengeAnswerOutcome } from './challenge-answers.ts';
import type { LiveTurn } from './match-events.ts';
import type {
  BotChanges,
  BotRecord,
  MatchRecord,
  MatchResult,
  MatchStatus,
  MoveRecord,
  NewBot,
  Page,
  RatingHistoryEntry,
  RatingRule,
  Strength,
} from './records.ts';

export interface BotQuery {
  /** Case-insensitive name prefix. */
  readonly namePrefix?: string;
  readonly includeRetired: boolean;
  readonly limit: number;
  readonly cursor?: string;
}

export interface MatchQuery {
  readonly botId?: string;
  readonly status?: MatchStatus;
  readonly limit: number;
  readonly cursor?: string;
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

export interface LeaderboardRow {
  readonly rank: number;
  readonly bot: BotRecord;
  readonly strength: Strength | null;
}

/** A bot listed on the leaderboard without a rank (too few rated games yet). */
export type UnrankedRow = Omit<LeaderboardRow, 'rank'>;

export interface LeaderboardSplitQuery {
  /** Ranks to skip, among the ranked bots. */
  readonly offset: number;
  readonly limit: number;
  /** Rated games a bot needs to be ranked. */
  readonly minGames: number;
  /** At most this many unranked bots (the best rated first). */
  readonly unrankedLimit: number;
}

export interface LeaderboardSplit {
  readonly ranked: LeaderboardRow[];
  readonly rankedTotal: number;
  readonly unranked: UnrankedRow[];
  readonly unrankedTotal: number;
  readonly strengthComputedAt: number | null;
}

/**
 * The arena's storage, shared by the HTTP layer and the workers. Every method that touches several
 * keys is atomic. Methods reject with `ConflictError` for a taken name and with the store's own
 * errors when Redis does not answer.
 */
/** Who appends a ply: a run of a match (see `ArenaStore.appendMove`). */
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

export interface ArenaStore {
  /**
   * Stores a new bot; rejects with `ConflictError('bots/name-taken')` when the name is taken, and
   * `ConflictError('accounts/too-many-bots')` when its owner has `maxOwnedBots` active bots already.
   */
  createBot(bot: NewBot, options?: { readonly maxOwnedBots?: number }): Promise<void>;
  getBot(id: string): Promise<BotRecord | null>;
  getBots(ids: readonly string[]): Promise<(BotRecord | null)[]>;
  /** The id of the active bot whose token has this hash, if any. */
  findBotIdByTokenHash(tokenHash: string): Promise<string | null>;
  /** Applies changes atomically; `null` when there is no such bot. */
  updateBot(id: string, changes: BotChanges): Promise<BotRecord | null>;
  /**
   * Ends a bot's matchmaking pause at `at` when it still holds then (its term is kept, for the
   * next pause's length). Null when the bot does not exist.
   */
  endPause(id: string, at: number): Promise<BotRecord | null>;
  /** Replaces the token (the old one stops working at once) and the webhook secret. */
  /** Gives a bot a new token (and webhook secret); a retired bot gets none. */
  replaceSecrets(
    id: string,
    tokenHash: string,
    webhookSecret: string | null,
  ): Promise<'replaced' | 'not-found' | 'retired'>;
  /** Retires the bot: off the leaderboard and the active list, token revoked. Idempotent. */
  retireBot(id: string): Promise<void>;
  listBots(query: BotQuery): Promise<Page<BotRecord>>;

  /**
   * Stores a new queued match. A challenge (a match created by a bot) counts against its
   * creator and its opponent until it ends; with `maxActiveChallenges` it is stored only while the
   * creator has fewer challenges queued or running than that, atomically (else `too-many-active`),
   * and with `maxChallengesAgainst` only while fewer are aimed at the opponent (else
   * `opponent-busy`). Refused (`bot-retired`) when one of its bots has retired since the caller read it.
   */
  createMatch(match: MatchRecord, options?: NewMatchOptions): Promise<NewMatchOutcome>;
  /**
   * Stores new queued matches and the colour balance they change (see `colorBalances`), all or
   * none, in one atomic write: the games the arena makes together (a paired game's two). Nothing
   * is written when one of them exists already (`exists`: a resend) or one of their bots has
   * retired (`bot-retired`).
   */
  createMatches(
    matches: readonly MatchRecord[],
    colorBalance: ReadonlyMap<string, number>,
  ): Promise<NewMatchesOutcome>;
  getMatch(id: string): Promise<MatchRecord | null>;
  /** Answers a pending challenge once (see store/challenge-answers.ts). */
  answerChallenge(id: string, answer: ChallengeAnswer, now: number): Promise<ChallengeAnswerOutcome>;
  getMoves(id: string): Promise<MoveRecord[]>;
  /**
   * A match, its moves and both players' current ratings (`null` for a bot with no record); null
   * when there is no such match. One round trip once this store has read the match's players
   * (they never change), two the first time.
   */
  getMatchWithRatings(id: string): Promise<MatchWithRatings | null>;
  listMatches(query: MatchQuery): Promise<Page<MatchRecord>>;

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
  /**
   * Every rated result so far, as tallies per ordered pairing (black, white) and outcome: O(pairings)
   * to read, however many results there are.
   */
  ratedTallies(): Promise<TallyColumns>;
  /** Replaces every bot's Bradley–Terry strength at once. */
  saveStrengths(strengths: ReadonlyMap<string, Strength>, computedAt: number): Promise<void>;
  /** Ids of matches in a status, oldest first (for the workers' reconciler). */
  matchIdsInStatus(status: MatchStatus, limit: number): Promise<string[]>;
  /** A bot's rating changes, oldest first: the latest `limit` of them (all when left out). */
  ratingHistory(botId: string, limit?: number): Promise<RatingHistoryEntry[]>;

  /** Every listed bot (active, guests aside) best rating first, ranked and unranked alike. */
  leaderboard(
    offset: number,
    limit: number,
  ): Promise<{ rows: LeaderboardRow[]; total: number; strengthComputedAt: number | null }>;
  /** A page of the ranked bots and, apart, the first unranked ones, split at once. */
  leaderboardSplit(query: LeaderboardSplitQuery): Promise<LeaderboardSplit>;
  /** Ids of active guests last seen at or before `cutoff`, longest idle first. */
  guestsIdleSince(cutoff: number, limit: number): Promise<string[]>;
  /** Records that an active guest was seen at `at` (never moves its time back). */
  touchGuest(id: string, at: number): Promise<void>;
  /**
   * Retires a guest (see `retireBot`) and drops its event stream, which only its revoked token could
   * read: a guest's turns would otherwise stay in memory for good. Idempotent.
   */
  retireGuest(id: string): Promise<void>;
  /** Bots' colour balance: their matchmade games as black minus as white (see `createMatches`). */
  colorBalances(ids: readonly string[]): Promise<number[]>;
  /**
   * Takes the lock `name` for at most `ttlMs` if nobody holds it: answers its release, or null when
   * another holder has it. The lock frees itself after `ttlMs` if its holder dies.
   */
  tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | null>;
  /** How many queued or running matches each bot has. */
  activeMatchCounts(ids: readonly string[]): Promise<number[]>;
  /**
   * How many queued or running matches the arena made (matchmaking's, tournaments', the admin's)
   * each bot has: challenges, which anyone may aim at a bot, are not counted.
   */
  arenaMatchCounts(ids: readonly string[]): Promise<number[]>;
  /** Active bots, oldest first (for matchmaking). */
  activeBots(): Promise<BotRecord[]>;
  /** Resolves when the store answers a round trip now; rejects when it does not (readiness). */
  ping(): Promise<void>;
  /**
   * How the store's connection stands as last seen, without a round trip: cheap enough for every
   * failed request, where it tells a store outage (503) from a bug (500).
   */
  health(): StoreHealth;
}

/** `up` while the store's connection is ready; `down` while it is lost and reconnecting. */
export type StoreHealth = 'up' | 'down';
