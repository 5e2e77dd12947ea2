import type { Principal } from '../arena/principal.ts';
import type { Config } from '../config.ts';
import type { BotRecord, MatchRecord, MoveRecord, RatingHistoryEntry, Strength } from '../store/records.ts';
import type { components } from './openapi-types.ts';

/** Store records to the documents of openapi.yaml. */
type Schemas = components['schemas'];

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export interface Presenter {
  bot(bot: BotRecord, viewer: Principal | null): Schemas['Bot'];
  leaderboardEntry(rank: number, bot: BotRecord, strength: Strength | null): Schemas['LeaderboardEntry'];
  ratingHistory(bot: BotRecord, entries: readonly RatingHistoryEntry[]): Schemas['RatingHistory'];
  matchSummary(match: MatchRecord): Schemas['MatchSummary'];
  match(match: MatchRecord, moves: readonly MoveRecord[]): Schemas['Match'];
}

export function presenter(rating: Config['rating']): Presenter {
  const provisional = (bot: BotRecord) => bot.ratedGames < rating.provisionalGames;
  const record = (bot: BotRecord) => ({
    games: bot.games,
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
        kind: bot.url === null ? 'pull' : 'push',
        status: bot.status,
        rating: bot.rating,
        provisional: provisional(bot),
        ...record(bot),
        createdAt: iso(bot.createdAt),
        lastPlayedAt: isoOrNull(bot.lastPlayedAt),
        paused: bot.paused === null ? null : { reason: bot.paused.reason, since: iso(bot.paused.since) },
      };
      const mayViewUrl = viewer?.kind === 'admin' || (viewer?.kind === 'bot' && viewer.botId === bot.id);
      if (bot.url !== null && mayViewUrl) body.url = bot.url;
      return body;
    },
    leaderboardEntry(rank, bot, strength) {
      return {
        rank,
        bot: { id: bot.id, name: bot.name },
        rating: bot.rating,
        provisional: provisional(bot),
        ...record(bot),
        lastPlayedAt: isoOrNull(bot.lastPlayedAt),
        strength,
      };
    },
    matchSummary(match) {
      return {
        id: match.id,
        black: match.black,
        white: match.white,
        rules: match.rules,
        rated: match.rated,
        status: match.status,
        createdAt: iso(match.createdAt),
        startedAt: isoOrNull(match.startedAt),
        finishedAt: isoOrNull(match.finishedAt),
        moveCount: match.moveCount,
        result: match.result as Schemas['MatchResult'] | null,
        ratings: match.ratings,
      };
    },
    ratingHistory(bot, entries) {
      return {
        bot: { id: bot.id, name: bot.name },
        items: entries.map((entry) => ({ ...entry, at: iso(entry.at) })),
      };
    },
    match(match, moves) {
      return {
        ...this.matchSummary(match),
        moves: moves.map((move) => ({ ...move, flips: [...move.flips] }) as Schemas['MoveRecord']),
      };
    },
  };
}
