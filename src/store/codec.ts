import { DEFAULT_GAME_ID } from '../game/index.ts';
import { ID_PATTERN, ULID_SOURCE } from '../ids.ts';
import type { BotRecord, MatchRecord, NewBot } from './records.ts';

/** Converts store records to and from the flat string fields of Redis hashes. */

const optionalNumber = (value: string | undefined): number | null =>
  value === undefined || value === '' ? null : Number(value);

export function newBotFields(bot: NewBot): string[] {
  const fields: Record<string, string> = {
    id: bot.id,
    name: bot.name,
    status: 'active',
    tokenHash: bot.tokenHash,
    createdAt: String(bot.createdAt),
    rating: String(bot.rating),
    ratedGames: '0',
    games: '0',
    wins: '0',
    losses: '0',
    draws: '0',
    acceptsChallenges: bot.acceptsChallenges ? '1' : '0',
  };
  if (bot.description !== null) fields.description = bot.description;
  if (bot.url !== null) fields.url = bot.url;
  if (bot.webhookSecret !== null) fields.webhookSecret = bot.webhookSecret;
  if (bot.house !== undefined) fields.house = bot.house;
  return Object.entries(fields).flat();
}

export function decodeBot(hash: Record<string, string>): BotRecord | null {
  if (hash.id === undefined || hash.name === undefined) return null;
  return {
    id: hash.id,
    name: hash.name,
    description: hash.description ?? null,
    url: hash.url ?? null,
    status: hash.status === 'retired' ? 'retired' : 'active',
    webhookSecret: hash.webhookSecret ?? null,
    createdAt: Number(hash.createdAt),
    rating: Number(hash.rating),
    ratedGames: Number(hash.ratedGames ?? 0),
    games: Number(hash.games ?? 0),
    wins: Number(hash.wins ?? 0),
    losses: Number(hash.losses ?? 0),
    draws: Number(hash.draws ?? 0),
    lastPlayedAt: optionalNumber(hash.lastPlayedAt),
    consecutiveFaults: Number(hash.consecutiveFaults ?? 0),
    paused:
      hash.pausedReason === undefined
        ? null
        : {
            reason: hash.pausedReason,
            since: Number(hash.pausedAt ?? 0),
            detail: hash.pausedDetail ?? null,
          },
    acceptsChallenges: hash.acceptsChallenges !== '0',
    house: hash.house ?? null,
  };
}

export function matchFields(match: MatchRecord): Record<string, string> {
  const fields: Record<string, string> = {
    id: match.id,
    game: match.game ?? DEFAULT_GAME_ID,
    black: JSON.stringify(match.black),
    white: JSON.stringify(match.white),
    rules: JSON.stringify(match.rules),
    rated: match.rated ? '1' : '0',
    status: match.status,
    createdBy: match.createdBy,
    createdAt: String(match.createdAt),
    moveCount: String(match.moveCount),
  };
  if (match.startedAt !== null) fields.startedAt = String(match.startedAt);
  if (match.finishedAt !== null) fields.finishedAt = String(match.finishedAt);
  if (match.result !== null) fields.result = JSON.stringify(match.result);
  if (match.ratings !== null) fields.ratings = JSON.stringify(match.ratings);
  return fields;
}

export function decodeMatch(hash: Record<string, string>): MatchRecord | null {
  if (
    hash.id === undefined ||
    hash.black === undefined ||
    hash.white === undefined ||
    hash.rules === undefined
  ) {
    return null;
  }
  return {
    id: hash.id,
    // Matches stored before they carried a game id are all Reversi's: read them so, no migration.
    game: hash.game ?? DEFAULT_GAME_ID,
    black: JSON.parse(hash.black),
    white: JSON.parse(hash.white),
    rules: JSON.parse(hash.rules),
    rated: hash.rated === '1',
    status: (hash.status ?? 'queued') as MatchRecord['status'],
    createdBy: hash.createdBy ?? 'admin',
    createdAt: Number(hash.createdAt),
    startedAt: optionalNumber(hash.startedAt),
    finishedAt: optionalNumber(hash.finishedAt),
    moveCount: Number(hash.moveCount ?? 0),
    result: hash.result ? JSON.parse(hash.result) : null,
    ratings: hash.ratings ? JSON.parse(hash.ratings) : null,
  };
}

/** Cursors are opaque to clients: the last member of the page, base64url-encoded. */
export function encodeCursor(member: string): string {
  return Buffer.from(member, 'utf8').toString('base64url');
}

/** The member a cursor names, or null when it is not a cursor of the expected shape. */
export function decodeCursor(cursor: string, shape: RegExp): string | null {
  const member = Buffer.from(cursor, 'base64url').toString('utf8');
  return shape.test(member) && encodeCursor(member) === cursor ? member : null;
}

export const CURSOR_SHAPE = {
  botName: new RegExp(`^[a-z0-9_-]{3,32} bot_${ULID_SOURCE}$`),
  matchId: ID_PATTERN.match,
} as const;
