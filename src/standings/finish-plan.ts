/**
 * What the end of a match does to its players' standings, decided from the records alone: the
 * match's final status, both ratings (by the rating rule), each bot's tally, rating history, fault
 * streak and matchmaking pause with its public text, and the `matchFinished` event each player
 * hears. Pure: the store reads the records, asks for a plan and writes it in one atomic step
 * (src/store/finish-match.ts), so a plan never sees half-written records.
 */
import { FAULT_REASONS, type FaultDetails, publicFaultText, resultAsSeenBy } from '../faults.ts';

export type Side = FaultDetails['player'];
export type Score = 0 | 0.5 | 1;

const SIDES = ['black', 'white'] as const satisfies readonly Side[];

/** The longest public pause reason, and the longest private detail, a bot record keeps. */
const PAUSE_REASON_MAX = 300;
const PAUSE_DETAIL_MAX = 500;

export interface PlayerRef {
  readonly id: string;
  readonly name: string;
}

/** A match's result, as far as standings go. */
export interface FinishedResult {
  readonly winner: Side | null;
  readonly reason: string;
  readonly fault?: FaultDetails;
}

/** What a finish reads of a bot. The store must guard every one of these fields (see finish-match.ts). */
export interface StandingBot {
  readonly id: string;
  readonly rating: number;
  readonly ratedGames: number;
  readonly consecutiveFaults: number;
  readonly status: 'active' | 'retired';
  /** A house bot's engine, `null` for any other: the arena plays its house bots itself, never pauses them. */
  readonly house: string | null;
  /** Set while matchmaking pauses the bot. */
  readonly paused: object | null;
  /** A guest's matches count for no rating, and a guest has no place on the leaderboard. */
  readonly guest?: boolean;
}

/** How ratings move after a rated match, given both bots as they stand when it finishes. */
export type RatingRule = (
  black: Pick<StandingBot, 'rating' | 'ratedGames'>,
  white: Pick<StandingBot, 'rating' | 'ratedGames'>,
  blackScore: Score,
) => { readonly black: number; readonly white: number };

export interface FinishInput<R extends FinishedResult> {
  /** A match that has not ended yet. */
  readonly match: {
    readonly id: string;
    readonly rated: boolean;
    readonly black: PlayerRef;
    readonly white: PlayerRef;
    /** `admin` (matchmaking, tournaments, the admin) or the id of the bot that challenged. */
    readonly createdBy: string;
  };
  /** Both players as they stand now; `null` for one with no record. */
  readonly bots: Readonly<Record<Side, StandingBot | null>>;
  readonly result: R;
  readonly now: number;
  readonly rate: RatingRule;
  /** A bot whose matches end by its fault this many times in a row is paused (0: never). */
  readonly pauseAfterFaults: number;
}

export interface RatingChange {
  readonly before: number;
  readonly after: number;
}

export interface RatingHistoryLine {
  readonly matchId: string;
  readonly at: number;
  readonly opponent: PlayerRef;
  readonly before: number;
  readonly after: number;
  readonly score: Score;
}

/** What a bot's rated game changes: its rating, its tally, and its place on the leaderboard. */
export interface RatedGame {
  readonly rating: number;
  readonly tally: 'wins' | 'losses' | 'draws';
  /** Only an active bot has a place on the leaderboard. */
  readonly onLeaderboard: boolean;
  /** Its rated games after this one (whether it is ranked is the leaderboard's to say). */
  readonly ratedGames: number;
  readonly history: RatingHistoryLine;
}

export interface Pause {
  /** Public: names the last fault by its generic text only. */
  readonly reason: string;
  /** Private, for the bot's owner: the last fault's full message. */
  readonly detail: string;
  readonly since: number;
}

export interface BotUpdate {
  readonly botId: string;
  /** `null` when the match counts for no rating. */
  readonly rated: RatedGame | null;
  /** The fault streak after this match; `null` when an abort leaves it as it is. */
  readonly consecutiveFaults: number | null;
  /** A pause that starts now; `null` when none does. */
  readonly pause: Pause | null;
}

/** The `matchFinished` event a player hears; only the bot at fault sees its fault in full. */
export interface FinishedEvent<R> {
  readonly matchId: string;
  readonly status: 'finished' | 'aborted';
  readonly result: R;
}

export interface FinishPlan<R extends FinishedResult> {
  readonly status: 'finished' | 'aborted';
  readonly result: R;
  readonly finishedAt: number;
  /** Both ratings before and after, when the match is rated and both bots have records. */
  readonly ratings: Readonly<Record<Side, RatingChange>> | null;
  /** The line the Bradley–Terry fit reads, when the match counts for ratings. */
  readonly ratedResult: { readonly black: string; readonly white: string; readonly score: Score } | null;
  /** One per player with a record, black first. */
  readonly bots: readonly BotUpdate[];
  readonly events: Readonly<Record<Side, FinishedEvent<R>>>;
}

const scoreOf = (result: FinishedResult, side: Side): Score =>
  result.winner === null ? 0.5 : result.winner === side ? 1 : 0;

const TALLY = { 1: 'wins', 0.5: 'draws', 0: 'losses' } as const satisfies Record<Score, RatedGame['tally']>;

/**
 * A match counts for ratings when it was played out or lost by a fault: an abort, and a side that
 * never showed up (no-show), count for nobody.
 */
export function countsForRatings(reason: string): boolean {
  return reason === 'completed' || (FAULT_REASONS as readonly string[]).includes(reason);
}

/**
 * Plans the end of a match. A rated match that counts moves both ratings by `rate` and counts a
 * game for each bot. Unless the match was aborted, the bot at fault extends its fault streak and
 * the other resets its own; a bot whose streak reaches `pauseAfterFaults` is paused (once: a paused
 * bot stays paused as it was). Pull bots too: paired only while they listen, those that listen and
 * never move (twenty such cost three real bots every rated game for a minute) are paused all the
 * same. A challenge leaves the challenged bot's streak as it was (the challenger chose its time
 * control, and three 50 ms challenges paused any bot further away), and can only extend its maker's.
 *
 * @example
 * const plan = planFinish({ match, bots: { black, white }, result, now, rate: eloRule(config), pauseAfterFaults: 3 });
 * plan.bots[0]?.consecutiveFaults; // 0 after a clean match
 */
export function planFinish<R extends FinishedResult>(input: FinishInput<R>): FinishPlan<R> {
  const { match, bots, result, now } = input;
  const status = result.reason === 'aborted' ? 'aborted' : 'finished';
  const black = bots.black;
  const white = bots.white;
  // A guest's match is created unrated; should one be rated all the same, it still counts for nobody.
  const rated = match.rated && countsForRatings(result.reason) && !black?.guest && !white?.guest;
  let ratings: FinishPlan<R>['ratings'] = null;
  if (rated && black && white) {
    const next = input.rate(black, white, scoreOf(result, 'black'));
    ratings = {
      black: { before: black.rating, after: next.black },
      white: { before: white.rating, after: next.white },
    };
  }
  const updates: BotUpdate[] = [];
  for (const side of SIDES) {
    const bot = bots[side];
    if (!bot) continue;
    const opponent = side === 'black' ? match.white : match.black;
    const score = scoreOf(result, side);
    const change = ratings?.[side];
    const atFault = result.fault?.player === side;
    // A challenge only adds to its maker's streak: it chose the clock, and a clean end it could
    // arrange with a partner that never moves would clear its streak for free.
    const challenge = match.createdBy !== 'admin';
    const streak =
      status === 'aborted' || (challenge && (match.createdBy !== bot.id || !atFault))
        ? null
        : atFault
          ? bot.consecutiveFaults + 1
          : 0;
    updates.push({
      botId: bot.id,
      rated: change
        ? {
            rating: change.after,
            tally: TALLY[score],
            onLeaderboard: bot.status === 'active' && !bot.guest,
            ratedGames: bot.ratedGames + 1,
            history: {
              matchId: match.id,
              at: now,
              opponent,
              before: change.before,
              after: change.after,
              score,
            },
          }
        : null,
      consecutiveFaults: streak,
      pause: streak === null ? null : pauseFor(bot, streak, result, input),
    });
  }
  const eventFor = (side: Side): FinishedEvent<R> => ({
    matchId: match.id,
    status,
    result: resultAsSeenBy(result, { color: side }),
  });
  return {
    status,
    result,
    finishedAt: now,
    ratings,
    ratedResult: rated
      ? { black: match.black.id, white: match.white.id, score: scoreOf(result, 'black') }
      : null,
    bots: updates,
    events: { black: eventFor('black'), white: eventFor('white') },
  };
}

/** The pause a bot's fault streak starts, if it reached the limit and the bot is not a house bot nor paused yet. */
function pauseFor(
  bot: StandingBot,
  streak: number,
  result: FinishedResult,
  input: Pick<FinishInput<FinishedResult>, 'pauseAfterFaults' | 'now'>,
): Pause | null {
  const fault = result.fault;
  // A clean match (streak 0) never pauses; nor does a streak below the limit, or a limit of 0.
  if (fault === undefined || input.pauseAfterFaults <= 0 || streak < input.pauseAfterFaults) return null;
  // A guest is a person, never paired by the arena, and cannot be resumed.
  if (bot.house !== null || bot.guest || bot.paused !== null) return null;
  // The reason is public: it names the fault by its generic text; the detail is the owner's.
  const last = publicFaultText(fault, fault.reason ?? result.reason);
  return {
    reason: `its last ${streak} matches ended by its faults (last: ${last})`.slice(0, PAUSE_REASON_MAX),
    detail: fault.message.slice(0, PAUSE_DETAIL_MAX),
    since: input.now,
  };
}
