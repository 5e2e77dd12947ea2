import type { OwnedBot } from '../arena/accounts.ts';
import { actsFor, type Principal } from '../arena/principal.ts';
import type { Config } from '../config.ts';
import type { components } from '../contract/index.ts';
import { DEFAULT_GAME_ID } from '../game/index.ts';
import { resultAsSeenBy } from '../model/faults.ts';
import { isPausedAt } from '../model/pause.ts';
import type {
  AccountRecord,
  BotRecord,
  MatchRecord,
  MoveRecord,
  RatingHistoryEntry,
  Strength,
} from '../model/records.ts';
import type { PasskeyRecord, SessionRecord } from '../store/sign-in-store.ts';
import type { Clock } from '../support/clock.ts';

/** Store records to the documents of openapi.yaml. */
type Schemas = components['schemas'];

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/**
 * A rating as the API shows it: to one decimal. Elo ratings are stored to ~17 digits, which only
 * make noise on the wire; the store keeps them whole.
 *
 * @example
 * rating1(1516.2534); // 1516.3
 */
export const rating1 = (value: number) => Math.round(value * 10) / 10;

const strength1 = (s: Strength | null) =>
  s === null ? null : { rating: rating1(s.rating), lower: rating1(s.lower), upper: rating1(s.upper) };

const ratingChange1 = (change: { before: number; after: number }) => ({
  before: rating1(change.before),
  after: rating1(change.after),
});

export interface Presenter {
  bot(bot: BotRecord, viewer: Principal | null): Schemas['Bot'];
  /** A leaderboard entry: `rank` from 1 for a ranked bot, `null` for an unranked one. */
  leaderboardEntry(
    rank: number | null,
    bot: BotRecord,
    strength: Strength | null,
  ): Schemas['LeaderboardEntry'];
  ratingHistory(bot: BotRecord, entries: readonly RatingHistoryEntry[]): Schemas['RatingHistory'];
  /** An account as its owner sees it, with its passkeys. */
  account(account: AccountRecord, passkeys: readonly PasskeyRecord[]): Schemas['Account'];
  passkey(passkey: PasskeyRecord): Schemas['Passkey'];
  session(session: SessionRecord, account: AccountRecord): Schemas['Session'];
  /** A bot among its owner's (see `AccountService.bots`): with its private fields and its last fault in full. */
  ownedBot(owned: OwnedBot, owner: Principal): Schemas['OwnedBot'];
  /** A match as `viewer` may see it: a fault in full only for the bot at fault and the admin. */
  matchSummary(match: MatchRecord, viewer: Principal | null): Schemas['MatchSummary'];
  match(match: MatchRecord, moves: readonly MoveRecord[], viewer: Principal | null): Schemas['Match'];
}

/** The viewer of a match's result: its colour when it plays in it, and whether it is the admin. */
export function matchViewer(match: MatchRecord, viewer: Principal | null) {
  const botId = viewer?.kind === 'bot' ? viewer.botId : null;
  const color = botId === match.black.id ? 'black' : botId === match.white.id ? 'white' : null;
  return { color, privileged: viewer?.kind === 'admin' } as const;
}

const kindOf = (bot: BotRecord) => (bot.house !== null ? 'house' : bot.url === null ? 'pull' : 'push');

/**
 * The public part of a bot's pause while it holds (its private detail is the owner's); `null`
 * once it has ended, though the record keeps it for the next pause's length.
 */
function publicPause(bot: BotRecord, now: number): Schemas['Pause'] | null {
  const pause = bot.paused;
  if (pause === null || !isPausedAt(pause, now)) return null;
  return { reason: pause.reason, since: iso(pause.since), until: iso(pause.until), level: pause.level };
}

export function presenter(rating: Config['rating'], clock: Clock): Presenter {
  const provisional = (bot: BotRecord) => bot.ratedGames < rating.provisionalGames;
  const record = (bot: BotRecord) => ({
    games: bot.games,
    ratedGames: bot.ratedGames,
    wins: bot.wins,
    losses: bot.losses,
    draws: bot.draws,
  });
  return {
    bot(bot, viewer) {
      const body: Schemas['Bot'] = {
        id: bot.id,
        name: bot.name,
        description: bot.description,
        kind: kindOf(bot),
        house: bot.house !== null,
        guest: bot.guest,
        status: bot.status,
        rating: rating1(bot.rating),
        provisional: provisional(bot),
        ...record(bot),
        createdAt: iso(bot.createdAt),
        lastPlayedAt: isoOrNull(bot.lastPlayedAt),
        paused: publicPause(bot, clock.now()),
        acceptsChallenges: bot.challenges !== 'refuse',
        challenges: bot.challenges,
        ratedPlay: bot.ratedPlay,
        slowPool: bot.slowPool === true,
        slowRating: bot.slowRating === null || bot.slowRating === undefined ? null : rating1(bot.slowRating),
        slowRatedGames: bot.slowRatedGames ?? 0,
        owner: bot.owner === null ? null : { ...bot.owner },
      };
      if (actsFor(viewer, bot)) {
        if (bot.url !== null) body.url = bot.url;
        if (body.paused && bot.paused?.detail) body.paused.detail = bot.paused.detail;
      }
      return body;
    },
    leaderboardEntry(rank, bot, strength) {
      return {
        rank,
        ranked: rank !== null,
        bot: { id: bot.id, name: bot.name },
        house: bot.house !== null,
        rating: rating1(bot.rating),
        provisional: provisional(bot),
        ...record(bot),
        lastPlayedAt: isoOrNull(bot.lastPlayedAt),
        strength: strength1(strength),
        paused: publicPause(bot, clock.now()),
      };
    },
    matchSummary(match, viewer) {
      return {
        id: match.id,
        game: match.game ?? DEFAULT_GAME_ID,
        black: match.black,
        white: match.white,
        rules: match.rules,
        rated: match.rated,
        status: match.status,
        createdAt: iso(match.createdAt),
        startedAt: isoOrNull(match.startedAt),
        finishedAt: isoOrNull(match.finishedAt),
        moveCount: match.moveCount,
        result:
          match.result === null
            ? null
            : (resultAsSeenBy(match.result, matchViewer(match, viewer)) as Schemas['MatchResult']),
        ratings:
          match.ratings === null
            ? null
            : { black: ratingChange1(match.ratings.black), white: ratingChange1(match.ratings.white) },
        ...(match.answerBy === undefined ? {} : { answerBy: iso(match.answerBy) }),
        ...(match.declineReason === undefined ? {} : { declineReason: match.declineReason }),
        ...(match.tournament === undefined ? {} : { tournament: { ...match.tournament } }),
        ...(match.pool === undefined ? {} : { pool: match.pool }),
      };
    },
    account(account, passkeys) {
      return {
        id: account.id,
        name: account.name,
        status: account.status,
        createdAt: iso(account.createdAt),
        passkeys: passkeys.map((passkey) => this.passkey(passkey)),
      };
    },
    passkey(passkey) {
      return {
        id: passkey.id,
        name: passkey.name,
        createdAt: iso(passkey.createdAt),
        lastUsedAt: isoOrNull(passkey.lastUsedAt),
      };
    },
    session(session, account) {
      return {
        account: { id: account.id, name: account.name },
        csrfToken: session.csrfToken,
        expiresAt: iso(session.expiresAt),
        via: session.via,
      };
    },
    ownedBot({ bot, lastFault }, owner) {
      return {
        ...this.bot(bot, owner),
        lastFault:
          lastFault === null
            ? null
            : {
                matchId: lastFault.match.id,
                at: iso(lastFault.match.finishedAt ?? lastFault.match.createdAt),
                reason: lastFault.match.result!.reason,
                fault: lastFault.fault as Schemas['Fault'],
              },
      };
    },
    ratingHistory(bot, entries) {
      return {
        bot: { id: bot.id, name: bot.name },
        items: entries.map((entry) => ({ ...entry, ...ratingChange1(entry), at: iso(entry.at) })),
      };
    },
    match(match, moves, viewer) {
      return {
        ...this.matchSummary(match, viewer),
        moves: moves.map((move) => ({ ...move, flips: [...move.flips] }) as Schemas['MoveRecord']),
      };
    },
  };
}
