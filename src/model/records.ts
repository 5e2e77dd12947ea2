/**
 * What the store keeps. These are storage shapes, not wire shapes: src/http maps them to the
 * documents of openapi.yaml. Times are epoch milliseconds.
 */

import type { Side as Color } from '../game/index.ts';
import type { FaultDetails, FaultReason } from './faults.ts';
import type { PauseTerm } from './pause.ts';

export type { Color };
export type BotStatus = 'active' | 'retired';
/**
 * `pending`: a challenge waiting for its target's answer (see BotRecord.challenges); then
 * `declined` or `expired`, or `queued` when accepted.
 */
export type MatchStatus = 'pending' | 'queued' | 'running' | 'finished' | 'aborted' | 'declined' | 'expired';

/** Every status, in the order a match goes through them. */
export const MATCH_STATUSES: readonly MatchStatus[] = [
  'pending',
  'queued',
  'running',
  'finished',
  'aborted',
  'declined',
  'expired',
];

/** Whether a match with this status is over: finished with a result, aborted, or a challenge not taken up (no match: not). */
export function matchEnded(status: MatchStatus | undefined): boolean {
  return status === 'finished' || status === 'aborted' || status === 'declined' || status === 'expired';
}

/** Why a bot declines a challenge: Lichess's keys, so bots written for both read them alike. */
export const DECLINE_REASONS = [
  'generic',
  'later',
  'tooFast',
  'tooSlow',
  'timeControl',
  'rated',
  'casual',
  'standard',
  'variant',
  'noBot',
  'onlyBot',
] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];
export type ResultReason = 'completed' | FaultReason | 'no-show' | 'aborted';

export interface BotRecord {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  /** A push bot's endpoint; `null` for a pull bot. */
  readonly url: string | null;
  readonly status: BotStatus;
  /** Standard Webhooks secret (`whsec_…`) the arena signs push calls with; `null` for pull bots. */
  readonly webhookSecret: string | null;
  readonly createdAt: number;
  readonly rating: number;
  readonly ratedGames: number;
  readonly games: number;
  readonly wins: number;
  readonly losses: number;
  readonly draws: number;
  readonly lastPlayedAt: number | null;
  /** Matches in a row that ended by this bot's fault (timeout, error, bad answer). */
  readonly consecutiveFaults: number;
  /**
   * The last time matchmaking stopped pairing the bot for its faults, kept after it ended (the next
   * pause's length depends on it): the pause holds until `until` (see src/model/pause.ts).
   */
  readonly paused: BotPause | null;
  /**
   * What a challenge aimed at this bot does (a match another bot creates with its token): it is
   * played (`accept`), refused (`refuse`), or waits for the bot's answer (`ask`).
   */
  readonly challenges: ChallengePolicy;
  /** Whether matchmaking and rated tournaments may take it: `false`, it plays only what it accepts. */
  readonly ratedPlay: boolean;
  /**
   * Whether the bot plays in the slow pool: rated matches at the slow time control (SLOW_POOL_*),
   * paired by matchmaking among the bots that opted in, rated apart (`slowRating`).
   */
  readonly slowPool?: boolean;
  /** The bot's Elo rating in the slow pool; null until it first opts in. */
  readonly slowRating?: number | null;
  readonly slowRatedGames?: number;
  /** The account that owns it; `null` for a bot registered without one. */
  readonly owner: PlayerRef | null;
  /** The last match that ended by this bot's fault, and when; `null` while none has. */
  readonly lastFault: { readonly matchId: string; readonly at: number } | null;
  /** A house bot's engine (see src/house/roster.ts): played in-process by the workers. */
  readonly house: string | null;
  /**
   * A guest: a person playing from a browser (POST /v1/guests). Never ranked, never matchmade,
   * always unrated, and retired once idle for GUEST_TTL_HOURS.
   */
  readonly guest: boolean;
  /**
   * Where it was registered from (a hash of the client's address group, as `clientOrigin` makes
   * it); never served. Matchmaking does not pair two bots registered from one address. `null` for
   * bots registered before the arena kept it, house bots and guests.
   */
  readonly registeredFrom: string | null;
}

export interface BotPause extends PauseTerm {
  /** Public: names the last fault by its generic text only. */
  readonly reason: string;
  /** Private: the last fault's full message, for the bot's owner. */
  readonly detail: string | null;
}

/** See BotRecord.challenges. */
export type ChallengePolicy = 'accept' | 'refuse' | 'ask';

export interface NewBot {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly url: string | null;
  readonly tokenHash: string;
  readonly webhookSecret: string | null;
  readonly createdAt: number;
  readonly rating: number;
  readonly challenges: ChallengePolicy;
  /** Default true. */
  readonly ratedPlay?: boolean;
  /** The account registering it, if one is. */
  readonly owner?: PlayerRef;
  /** Set for the arena's house bots only. */
  readonly house?: string;
  /** A guest is stored off the active list and the leaderboard (see BotRecord.guest). */
  readonly guest?: boolean;
  /** See BotRecord.registeredFrom. */
  readonly registeredFrom?: string;
}

/**
 * A bot as the slow pool rates it: its slow rating (its arena rating until its first slow game) and
 * its slow rated games in place of the arena's. What the slow pool's matchmaking pairs by, its
 * finish rates and its leaderboard shows.
 */
export function inSlowPool(bot: BotRecord): BotRecord {
  return { ...bot, rating: bot.slowRating ?? bot.rating, ratedGames: bot.slowRatedGames ?? 0 };
}

export interface BotChanges {
  readonly name?: string;
  readonly description?: string | null;
  readonly url?: string | null;
  /** Set when the bot becomes a push bot; cleared when it becomes a pull bot. */
  readonly webhookSecret?: string | null;
  readonly challenges?: ChallengePolicy;
  readonly ratedPlay?: boolean;
  readonly slowPool?: boolean;
}

export type AccountStatus = 'active' | 'closed';

/** A person (or a team) owning bots; signs in with a token, a passkey or an OpenID provider. */
export interface AccountRecord {
  readonly id: string;
  readonly name: string;
  readonly status: AccountStatus;
  readonly createdAt: number;
}

export interface NewAccount {
  readonly id: string;
  readonly name: string;
  readonly tokenHash: string;
  readonly createdAt: number;
}

export interface MatchRules {
  readonly firstPlayer: Color;
  readonly captureRule: 'all' | 'single-direction';
  /** Reversi's `discs` or `empties-to-winner`; the solo game's `tokens` or `points`. */
  readonly scoring: 'discs' | 'empties-to-winner' | 'tokens' | 'points';
  readonly timeLimitMs: number;
  readonly overageMs: number;
  /**
   * The balanced opening the match starts from (an id of src/reversi/openings), whose plies the arena
   * plays before the first bot move; absent for the standard start (never stored as `standard`).
   */
  readonly opening?: string;
  /** The solo game's token layout (see src/game/solo-game.ts); absent in Reversi. */
  readonly layout?: number;
}

export interface PlayerRef {
  readonly id: string;
  readonly name: string;
}

/** A bot's fault as recorded: the full details; see src/model/faults.ts for what the public sees. */
export type Fault = FaultDetails;

export interface MatchResult {
  readonly winner: Color | null;
  readonly discs: { readonly black: number; readonly white: number };
  readonly reason: ResultReason;
  readonly fault?: Fault;
}

/** The result of a match the arena ended without a game: nobody wins, nothing is counted. */
export function abortedResult(): MatchResult {
  return { winner: null, discs: { black: 0, white: 0 }, reason: 'aborted' };
}

/** The colour bot `botId` plays in a match, or null when it is not one of the players. */
export function colorOfBot(match: Pick<MatchRecord, 'black' | 'white'>, botId: string): Color | null {
  if (match.black.id === botId) return 'black';
  if (match.white.id === botId) return 'white';
  return null;
}

export interface RatingChange {
  readonly before: number;
  readonly after: number;
}

export interface MatchRatings {
  readonly black: RatingChange;
  readonly white: RatingChange;
}

/** What a rated match does to both ratings, given both bots as they stand when it finishes. */
export type RatingRule = (
  black: Pick<BotRecord, 'rating' | 'ratedGames'>,
  white: Pick<BotRecord, 'rating' | 'ratedGames'>,
  blackScore: 0 | 0.5 | 1,
) => { readonly black: number; readonly white: number };

/** A Bradley–Terry rating with its 95% interval, in Elo points. */
export interface Strength {
  readonly rating: number;
  readonly lower: number;
  readonly upper: number;
}

export interface RatingHistoryEntry {
  readonly matchId: string;
  readonly at: number;
  readonly opponent: PlayerRef;
  readonly before: number;
  readonly after: number;
  readonly score: 0 | 0.5 | 1;
}

export interface MatchRecord {
  readonly id: string;
  /**
   * The id of the game played (see src/game). Stored records that predate game ids read as
   * Reversi's (the codec fills it in); a record built in memory may leave it out for the same.
   */
  readonly game?: string;
  readonly black: PlayerRef;
  readonly white: PlayerRef;
  /** The game's options (Reversi's are the only ones a match names yet) and the time control. */
  readonly rules: MatchRules;
  readonly rated: boolean;
  readonly status: MatchStatus;
  /** `admin` or the id of the bot that created the match. */
  readonly createdBy: string;
  readonly createdAt: number;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  readonly moveCount: number;
  readonly result: MatchResult | null;
  readonly ratings: MatchRatings | null;
  /** Set on a tournament's matches: the tournament and the round (from 1) the match belongs to. */
  readonly tournament?: TournamentRef;
  /** `slow`: a match of the slow pool, rated apart at the slow time control; absent: the arena's pool. */
  readonly pool?: 'slow';
  /**
   * Set on a challenge while it is queued or running: where it was made from (a hash of the
   * client's address group, as the rate limits group addresses), which the cap on one origin's
   * challenges aimed at a bot counts. Removed when the match ends; never served.
   */
  readonly origin?: string;
  /** Set on a challenge its maker's owner (an account) made: what the cap on an owner's challenges counts. */
  readonly challengerOwner?: string;
  /** Set while a challenge is pending: when it expires unanswered. */
  readonly answerBy?: number;
  /** Set on a declined challenge: why. */
  readonly declineReason?: DeclineReason;
}

/**
 * How a queued match waits for a worker: a bots' challenge (made with a bot's token, whose maker
 * picks clocks of up to minutes a move) behind the arena's own matches; the arena's matches and a
 * person's game at /play (a guest among `players`) as they come.
 */
export function queueClassOf(
  match: Pick<MatchRecord, 'createdBy'>,
  players: readonly (Pick<BotRecord, 'guest'> | null | undefined)[],
): 'challenge' | undefined {
  return match.createdBy !== 'admin' && !players.some((bot) => bot?.guest === true) ? 'challenge' : undefined;
}

export interface TournamentRef {
  readonly id: string;
  readonly round: number;
}

export interface MoveRecord {
  readonly ply: number;
  readonly player: Color;
  /** A square such as `d3`, or `pass`. */
  readonly square: string;
  readonly direction?: string;
  /** The colour of the disc placed, in a game whose player chooses it (the solo game). */
  readonly colour?: Color;
  readonly flips: readonly string[];
  readonly latencyMs: number;
  /** Set on the plies of the match's opening, which the arena plays itself (latency 0, no clock charged). */
  readonly opening?: true;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}
