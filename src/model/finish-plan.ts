/**
 * What the end of a match does to its players' standings, decided from the records alone: the
 * match's final status, both ratings (by the rating rule), each bot's tally, rating history, fault
 * streak and matchmaking pause with its public text, and the `matchFinished` event each player
 * hears. Pure: the store reads the records, asks for a plan and writes it in one atomic step
 * (src/redis/finish-match.ts), so a plan never sees half-written records.
 */
import { FAULT_REASONS, type FaultDetails, publicFaultText, resultAsSeenBy } from './faults.ts';
import { isPausedAt, nextPause, type PausePolicy, type PauseTerm } from './pause.ts';

export type { PausePolicy };

export type Side = FaultDetails['player'];
export type Score = 0 | 0.5 | 1;

const SIDES = ['black', 'white'] as const satisfies readonly Side[];

/**
 * The sides of a match that seat a bot of their own: both, or only `black` in a one-player game
 * (the solo game seats its player on both sides), so nothing is done to one bot twice.
 */
export function seatedSides(match: {
  readonly black: PlayerRef;
  readonly white: PlayerRef;
}): readonly Side[] {
  return match.black.id === match.white.id ? ['black'] : SIDES;
}

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
  /** The bot's last matchmaking pause, which may have ended; `null` when it was never paused. */
  readonly paused: PauseTerm | null;
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
  /** When a bot's faults pause it, and for how long. */
  readonly pauses: PausePolicy;
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

/** What a rated game that judged a bot changes: its rating, its count of rated games, its place on the leaderboard. */
export interface RatedGame {
  readonly rating: number;
  /** Only an active bot has a place on the leaderboard. */
  readonly onLeaderboard: boolean;
  /** Its rated games after this one (whether it is ranked is the leaderboard's to say). */
  readonly ratedGames: number;
  readonly history: RatingHistoryLine;
}

export interface Pause extends PauseTerm {
  /** Public: names the last fault by its generic text only. */
  readonly reason: string;
  /** Private, for the bot's owner: the last fault's full message. */
  readonly detail: string;
}

export type Tally = 'wins' | 'losses' | 'draws';

export interface BotUpdate {
  readonly botId: string;
  /** The win, draw or loss a rated match counts (a game, and the time it was played); `null` when it counts none. */
  readonly tally: Tally | null;
  /** `null` when the match leaves the bot's rating as it was (see `planFinish`). */
  readonly rated: RatedGame | null;
  /** The fault streak after this match; `null` when an abort leaves it as it is. */
  readonly consecutiveFaults: number | null;
  /** A pause that starts now; `null` when none does. */
  readonly pause: Pause | null;
  /** Set when the match ended by this bot's fault: its owner sees its last fault. */
  readonly faulted: boolean;
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

/** The side whose fault ended the match; `undefined` for a match played out or aborted. */
const faulterOf = (result: FinishedResult): Side | undefined =>
  result.reason === 'completed' ? undefined : result.fault?.player;

/** A fault loses the game for the side at fault, whatever the record's `winner` (a no-show's was `null` once). */
function scoreOf(result: FinishedResult, side: Side): Score {
  const faulter = faulterOf(result);
  if (faulter !== undefined) return faulter === side ? 0 : 1;
  return result.winner === null ? 0.5 : result.winner === side ? 1 : 0;
}

const TALLY = { 1: 'wins', 0.5: 'draws', 0: 'losses' } as const satisfies Record<Score, Tally>;

/**
 * A match counts for the standings when it was played out or ended by a side's fault, a no-show
 * included: only an abort (the arena's failure) counts for nobody.
 */
export function countsForRatings(reason: string): boolean {
  return (
    reason === 'completed' || reason === 'no-show' || (FAULT_REASONS as readonly string[]).includes(reason)
  );
}

/**
 * Plans the end of a match. A rated match played out moves both ratings by `rate`. One that ends
 * by a side's fault (a no-show included) moves only that side's rating, as the loss `rate` gives
 * it, and leaves its opponent's as it was: else a bot that faults on purpose would hand its
 * partner rating, and one that never moves would dodge the games it expects to lose. Both count
 * the result in their wins, draws and losses; only a side whose rating the game judged counts it
 * among its rated games and in its rating history, and only a game played out reaches the
 * Bradley–Terry fit (docs/fair-play.md).
 *
 * Unless the match was aborted, the bot at fault extends its fault streak and the other resets
 * its own; a bot whose streak reaches `pauses.afterFaults` is paused for a term that grows with
 * each pause soon after the last (src/model/pause.ts; a bot still paused stays paused as it
 * was). Pull bots too: paired only while they listen, those that listen and never move are paused
 * all the same. A challenge leaves the challenged bot's streak as it was (the challenger chose its
 * time control, and three 50 ms challenges paused any bot further away), and can only extend its
 * maker's.
 *
 * @example
 * const plan = planFinish({ match, bots: { black, white }, result, now, rate: eloRule(config), pauses });
 * plan.bots[0]?.consecutiveFaults; // 0 after a clean match
 */
export function planFinish<R extends FinishedResult>(input: FinishInput<R>): FinishPlan<R> {
  const { match, bots, result, now } = input;
  const status = result.reason === 'aborted' ? 'aborted' : 'finished';
  const black = bots.black;
  const white = bots.white;
  // A guest's match is created unrated; should one be rated all the same, it still counts for nobody.
  const counted = match.rated && countsForRatings(result.reason) && !black?.guest && !white?.guest;
  const faulter = faulterOf(result);
  // A fault judges the side at fault alone; a game played out judges both.
  const judged = (side: Side) => faulter === undefined || faulter === side;
  let ratings: FinishPlan<R>['ratings'] = null;
  if (counted && black && white) {
    const next = input.rate(black, white, scoreOf(result, 'black'));
    ratings = {
      black: { before: black.rating, after: judged('black') ? next.black : black.rating },
      white: { before: white.rating, after: judged('white') ? next.white : white.rating },
    };
  }
  const updates: BotUpdate[] = [];
  for (const side of seatedSides(match)) {
    const bot = bots[side];
    if (!bot) continue;
    const opponent = side === 'black' ? match.white : match.black;
    const score = scoreOf(result, side);
    const change = judged(side) ? ratings?.[side] : undefined;
    const atFault = faulter === side;
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
      tally: ratings ? TALLY[score] : null,
      rated: change
        ? {
            rating: change.after,
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
      faulted: atFault && status !== 'aborted',
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
    // The fit judges strength from games played out: a forfeit says nothing of the winner's play.
    ratedResult:
      ratings && result.reason === 'completed'
        ? { black: match.black.id, white: match.white.id, score: scoreOf(result, 'black') }
        : null,
    bots: updates,
    events: { black: eventFor('black'), white: eventFor('white') },
  };
}

/** The pause a bot's fault streak starts, if it reached the limit and the bot is not a house bot nor paused now. */
function pauseFor(
  bot: StandingBot,
  streak: number,
  result: FinishedResult,
  input: Pick<FinishInput<FinishedResult>, 'pauses' | 'now'>,
): Pause | null {
  const fault = result.fault;
  const { afterFaults, backoff } = input.pauses;
  // A clean match (streak 0) never pauses; nor does a streak below the limit, or a limit of 0.
  if (fault === undefined || afterFaults <= 0 || streak < afterFaults) return null;
  // A guest is a person, never paired by the arena.
  if (bot.house !== null || bot.guest || isPausedAt(bot.paused, input.now)) return null;
  // The reason is public: it names the fault by its generic text; the detail is the owner's.
  const last = publicFaultText(fault, fault.reason ?? result.reason);
  return {
    reason: `its last ${streak} matches ended by its faults (last: ${last})`.slice(0, PAUSE_REASON_MAX),
    detail: fault.message.slice(0, PAUSE_DETAIL_MAX),
    ...nextPause(bot.paused, input.now, backoff),
  };
}
