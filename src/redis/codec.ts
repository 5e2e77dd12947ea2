import { DEFAULT_GAME_ID } from '../game/index.ts';
import type {
  AccountRecord,
  BotRecord,
  ChallengePolicy,
  Color,
  DeclineReason,
  MatchRatings,
  MatchRecord,
  MatchResult,
  MatchRules,
  NewAccount,
  NewBot,
  PlayerRef,
  RatingHistoryEntry,
  TournamentRef,
} from '../model/records.ts';
import { colorOfBot } from '../model/records.ts';
import { ID_PATTERN, ULID_SOURCE } from '../support/ids.ts';

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
  };
  // The defaults (accept, rated play, no owner) are written as nothing: most bots keep them.
  if (bot.challenges !== 'accept') fields.challenges = bot.challenges;
  if (bot.ratedPlay === false) fields.ratedPlay = '0';
  if (bot.owner !== undefined) {
    fields.owner = bot.owner.id;
    fields.ownerName = bot.owner.name;
  }
  if (bot.description !== null) fields.description = bot.description;
  if (bot.url !== null) fields.url = bot.url;
  if (bot.webhookSecret !== null) fields.webhookSecret = bot.webhookSecret;
  if (bot.house !== undefined) fields.house = bot.house;
  if (bot.guest) fields.guest = '1';
  if (bot.registeredFrom !== undefined) fields.registeredFrom = bot.registeredFrom;
  return Object.entries(fields).flat();
}

/** A bot's challenge policy: its own field, else the `acceptsChallenges` flag bots were written with before. */
function challengePolicyOf(hash: Record<string, string>): ChallengePolicy {
  const policy = hash.challenges;
  if (policy === 'accept' || policy === 'refuse' || policy === 'ask') return policy;
  return hash.acceptsChallenges === '0' ? 'refuse' : 'accept';
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
            // A pause written before pauses had terms held until an edit, which no longer lifts one: ended.
            until: Number(hash.pausedUntil ?? hash.pausedAt ?? 0),
            level: Number(hash.pauseLevel ?? 1),
            detail: hash.pausedDetail ?? null,
          },
    challenges: challengePolicyOf(hash),
    ratedPlay: hash.ratedPlay !== '0',
    slowPool: hash.slowPool === '1',
    slowRating: optionalNumber(hash.slowRating),
    slowRatedGames: Number(hash.slowRatedGames ?? 0),
    owner: hash.owner === undefined ? null : { id: hash.owner, name: hash.ownerName ?? '' },
    lastFault:
      hash.lastFaultMatch === undefined
        ? null
        : { matchId: hash.lastFaultMatch, at: Number(hash.lastFaultAt ?? 0) },
    house: hash.house ?? null,
    guest: hash.guest === '1',
    registeredFrom: hash.registeredFrom ?? null,
  };
}

/*
 * A match hash keeps every value short (under Redis's `hash-max-listpack-value`, 64 bytes), so
 * Redis stores it as one compact listpack rather than a table of separate strings: players as
 * `<id> <name>`, rules, result and ratings as space-separated values. Records written before
 * (JSON values, which always start with `{`) read as they were: both forms decode.
 */

const isJson = (value: string) => value.startsWith('{');

function encodePlayer(player: PlayerRef): string {
  return `${player.id} ${player.name}`;
}

function decodePlayer(value: string): PlayerRef {
  if (isJson(value)) return JSON.parse(value);
  const space = value.indexOf(' ');
  return { id: value.slice(0, space), name: value.slice(space + 1) };
}

const RULE_KEYS = ['firstPlayer', 'captureRule', 'scoring', 'timeLimitMs', 'overageMs'] as const;

/**
 * The rules as one field: the five values in order, then the opening's id when there is one, or
 * the solo game's layout as `@<number>` (an opening id never starts with `@`). Kept short, as JSON
 * would pass 64 bytes and turn the whole match hash from a listpack into a table.
 */
function encodeRules(rules: MatchRules): string {
  const values = RULE_KEYS.map((key) => rules[key]);
  if (rules.layout !== undefined) return [...values, `@${rules.layout}`].join(' ');
  return (rules.opening === undefined ? values : [...values, rules.opening]).join(' ');
}

/** A match's rules from its stored field, either form. */
export function decodeRules(value: string): MatchRules {
  if (isJson(value)) return JSON.parse(value);
  const [firstPlayer, captureRule, scoring, timeLimitMs, overageMs, last] = value.split(' ');
  return {
    firstPlayer: firstPlayer as MatchRules['firstPlayer'],
    captureRule: captureRule as MatchRules['captureRule'],
    scoring: scoring as MatchRules['scoring'],
    timeLimitMs: Number(timeLimitMs),
    overageMs: Number(overageMs),
    ...(last === undefined
      ? {}
      : last.startsWith('@')
        ? { layout: Number(last.slice(1)) }
        : { opening: last }),
  };
}

/**
 * A result as its hash field: `<winner or -> <black count> <white count> <reason>`, then the fault
 * as JSON when there is one (a fault's message is free text, so that field may be long).
 *
 * @example
 * encodeResult({ winner: 'black', discs: { black: 40, white: 24 }, reason: 'completed' }); // 'black 40 24 completed'
 */
export function encodeResult(result: MatchResult): string {
  const head = `${result.winner ?? '-'} ${result.discs.black} ${result.discs.white} ${result.reason}`;
  return result.fault === undefined ? head : `${head} ${JSON.stringify(result.fault)}`;
}

function decodeResult(value: string): MatchResult {
  if (isJson(value)) return JSON.parse(value);
  const [winner = '-', black, white, reason, ...fault] = value.split(' ');
  return {
    winner: winner === '-' ? null : (winner as Color),
    discs: { black: Number(black), white: Number(white) },
    reason: reason as MatchResult['reason'],
    ...(fault.length > 0 ? { fault: JSON.parse(fault.join(' ')) } : {}),
  };
}

/**
 * A rating as at most 12 characters, exactly: its decimal form when that is short (`1500`,
 * `1516.25`), else `~` and the base64url of its 8 IEEE 754 bytes (Elo ratings carry ~17 digits).
 */
function encodeRating(rating: number): string {
  const decimal = String(rating);
  if (decimal.length <= 12) return decimal;
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleBE(rating);
  return `~${bytes.toString('base64url')}`;
}

function decodeRating(value: string): number {
  return value.startsWith('~') ? Buffer.from(value.slice(1), 'base64url').readDoubleBE() : Number(value);
}

/**
 * Both rating changes as a hash field, `<black before> <black after> <white before> <white after>`
 * (each as `encodeRating` writes it, so the field stays under 64 bytes).
 */
export function encodeRatings(ratings: MatchRatings): string {
  return [ratings.black.before, ratings.black.after, ratings.white.before, ratings.white.after]
    .map(encodeRating)
    .join(' ');
}

function decodeRatings(value: string): MatchRatings {
  if (isJson(value)) return JSON.parse(value);
  const [bb, ba, wb, wa] = value.split(' ').map(decodeRating);
  return { black: { before: bb!, after: ba! }, white: { before: wb!, after: wa! } };
}

export function matchFields(match: MatchRecord): Record<string, string> {
  const fields: Record<string, string> = {
    id: match.id,
    game: match.game ?? DEFAULT_GAME_ID,
    black: encodePlayer(match.black),
    white: encodePlayer(match.white),
    rules: encodeRules(match.rules),
    rated: match.rated ? '1' : '0',
    status: match.status,
    createdBy: match.createdBy,
    createdAt: String(match.createdAt),
    moveCount: String(match.moveCount),
  };
  if (match.startedAt !== null) fields.startedAt = String(match.startedAt);
  if (match.finishedAt !== null) fields.finishedAt = String(match.finishedAt);
  if (match.result !== null) fields.result = encodeResult(match.result);
  if (match.ratings !== null) fields.ratings = encodeRatings(match.ratings);
  if (match.tournament !== undefined) fields.tournament = `${match.tournament.id} ${match.tournament.round}`;
  if (match.pool !== undefined) fields.pool = match.pool;
  if (match.origin !== undefined) fields.origin = match.origin;
  if (match.challengerOwner !== undefined) fields.challengerOwner = match.challengerOwner;
  if (match.answerBy !== undefined) fields.answerBy = String(match.answerBy);
  if (match.declineReason !== undefined) fields.declineReason = match.declineReason;
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
    black: decodePlayer(hash.black),
    white: decodePlayer(hash.white),
    rules: decodeRules(hash.rules),
    rated: hash.rated === '1',
    status: (hash.status ?? 'queued') as MatchRecord['status'],
    createdBy: hash.createdBy ?? 'admin',
    createdAt: Number(hash.createdAt),
    startedAt: optionalNumber(hash.startedAt),
    finishedAt: optionalNumber(hash.finishedAt),
    moveCount: Number(hash.moveCount ?? 0),
    result: hash.result ? decodeResult(hash.result) : null,
    ratings: hash.ratings ? decodeRatings(hash.ratings) : null,
    ...(hash.tournament ? { tournament: decodeTournamentRef(hash.tournament) } : {}),
    ...(hash.pool === 'slow' ? { pool: 'slow' as const } : {}),
    ...(hash.origin ? { origin: hash.origin } : {}),
    ...(hash.challengerOwner ? { challengerOwner: hash.challengerOwner } : {}),
    ...(hash.answerBy ? { answerBy: Number(hash.answerBy) } : {}),
    ...(hash.declineReason ? { declineReason: hash.declineReason as DeclineReason } : {}),
  };
}

/** A tournament match's `tournament` field, `<tournament id> <round>`. */
function decodeTournamentRef(value: string): TournamentRef {
  const [id = '', round] = value.split(' ');
  return { id, round: Number(round) };
}

/**
 * A rating history entry as its list item: the match id alone. Everything else an entry says (when,
 * the opponent, the ratings before and after, the score) is in the finished match's record, so a
 * copy would be a second source of truth at three times the size; `historyEntryOf` reads it back.
 * Items written before are the entry's JSON, and read as they are (see `isJsonHistoryItem`).
 *
 * @example
 * encodeHistoryEntry(entry); // 'match_01JC3S0M0F7ZP4C8W4Y4N0Y8QH'
 */
export function encodeHistoryEntry(entry: RatingHistoryEntry): string {
  return entry.matchId;
}

/** True for a history item in the old form (the entry's JSON), false for a match id. */
export const isJsonHistoryItem = isJson;

/** What of a match's record a rating history entry tells. */
type HistoryFields = Pick<MatchRecord, 'id' | 'black' | 'white' | 'finishedAt' | 'result' | 'ratings'>;

/** The fields of a match's hash a history entry is read from (`HMGET`), in `historyFieldsOf`'s order. */
export const HISTORY_FIELDS = ['id', 'black', 'white', 'finishedAt', 'result', 'ratings'] as const;

/**
 * What a history entry needs of a match, from its `HISTORY_FIELDS` (null where missing): a long
 * history reads these alone, not whole records (half the time per entry). Null for no record.
 */
export function historyFieldsOf(values: readonly (string | null)[]): HistoryFields | null {
  const [id, black, white, finishedAt, result, ratings] = values;
  if (id == null || black == null || white == null) return null;
  return {
    id,
    black: decodePlayer(black),
    white: decodePlayer(white),
    finishedAt: optionalNumber(finishedAt ?? undefined),
    result: result ? decodeResult(result) : null,
    ratings: ratings ? decodeRatings(ratings) : null,
  };
}

/**
 * A bot's rating history entry for a finished rated match, from the match's record; null when the
 * record is missing, unrated or the bot did not play in it.
 */
export function historyEntryOf(match: HistoryFields | null, botId: string): RatingHistoryEntry | null {
  if (match === null || match.ratings === null || match.result === null || match.finishedAt === null)
    return null;
  const side = colorOfBot(match, botId);
  if (side === null) return null;
  const { winner } = match.result;
  return {
    matchId: match.id,
    at: match.finishedAt,
    opponent: side === 'black' ? match.white : match.black,
    before: match.ratings[side].before,
    after: match.ratings[side].after,
    score: winner === null ? 0.5 : winner === side ? 1 : 0,
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

export function newAccountFields(account: NewAccount): string[] {
  return [
    'id',
    account.id,
    'name',
    account.name,
    'status',
    'active',
    'tokenHash',
    account.tokenHash,
    'createdAt',
    String(account.createdAt),
  ];
}

export function decodeAccount(hash: Record<string, string>): AccountRecord | null {
  if (hash.id === undefined || hash.name === undefined) return null;
  return {
    id: hash.id,
    name: hash.name,
    status: hash.status === 'closed' ? 'closed' : 'active',
    createdAt: Number(hash.createdAt),
  };
}
