import { luaCommand } from '../connections/lua-command.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import { type BotRecord, inSlowPool, type Strength } from '../model/records.ts';
import type { TallyColumns } from '../rating/bradley-terry.ts';
import type { LeaderboardRow, LeaderboardSplit, LeaderboardSplitQuery } from '../store/rating-store.ts';
import { idOfNameMember, type StoreKeys } from './keys.ts';
import { BACKFILL_LEADERBOARD_GAMES, FOLD_RATED_RESULTS, LEADERBOARD_SPLIT } from './lua-scripts.ts';
import { readBots } from './read.ts';

/** The leaderboard, the rated tallies and the Bradley–Terry strengths, on Redis. */

export async function leaderboardPage(redis: RedisClient, keys: StoreKeys, offset: number, limit: number) {
  const [ids, total, computedAt] = await Promise.all([
    redis.zrange(keys.leaderboard, offset, offset + limit - 1),
    redis.zcard(keys.leaderboard),
    redis.get(keys.strengthComputedAt),
  ]);
  const [records, strengths] = await Promise.all([
    readBots(redis, keys, ids),
    ids.length === 0 ? Promise.resolve([]) : redis.hmget(keys.strength, ...ids),
  ]);
  const rows: LeaderboardRow[] = [];
  records.forEach((bot, i) => {
    const strength = strengths[i];
    if (bot)
      rows.push({
        rank: offset + i + 1,
        bot,
        strength: strength ? (JSON.parse(strength) as Strength) : null,
      });
  });
  return { rows, total, strengthComputedAt: computedAt === null ? null : Number(computedAt) };
}

/**
 * A page of the ranked bots (at least `minGames` rated games, ranks from `offset + 1`) and the
 * first `unrankedLimit` unranked ones, both best rating first, split in one script call so no bot
 * is in both or neither; then their records and strengths in one round trip.
 */
export async function leaderboardSplitPage(
  redis: RedisClient,
  keys: StoreKeys,
  query: LeaderboardSplitQuery,
): Promise<LeaderboardSplit> {
  const split = luaCommand<[string[], string[], number, number]>(redis, LEADERBOARD_SPLIT, 2);
  const slow = query.pool === 'slow';
  const [[rankedIds, unrankedIds, rankedTotal, unrankedTotal], computedAt] = await Promise.all([
    split(
      slow ? keys.slowLeaderboard : keys.leaderboard,
      slow ? keys.slowLeaderboardGames : keys.leaderboardGames,
      query.offset,
      query.limit,
      query.minGames,
      query.unrankedLimit,
    ),
    redis.get(keys.strengthComputedAt),
  ]);
  const ids = [...rankedIds, ...unrankedIds];
  const [records, strengths] = await Promise.all([
    readBots(redis, keys, ids),
    ids.length === 0 || slow ? Promise.resolve([]) : redis.hmget(keys.strength, ...ids),
  ]);
  const rows = ids.map((_, i) => {
    const record = records[i];
    // The slow pool's rows show the slow rating, as its matches rate it.
    const bot = record && slow ? inSlowPool(record) : record;
    const strength = strengths[i];
    return bot ? { bot, strength: strength ? (JSON.parse(strength) as Strength) : null } : null;
  });
  const ranked: LeaderboardRow[] = [];
  rows.slice(0, rankedIds.length).forEach((row, i) => {
    if (row) ranked.push({ rank: query.offset + i + 1, ...row });
  });
  return {
    ranked,
    rankedTotal,
    unranked: rows.slice(rankedIds.length).filter((row) => row !== null),
    unrankedTotal,
    strengthComputedAt: computedAt === null ? null : Number(computedAt),
  };
}

/** Bots read per backfill call: a short, bounded stop for Redis. */
const BACKFILL_BATCH = 500;

/**
 * Gives every bot on the leaderboard its rated games in `leaderboardGames`, for bots listed before
 * that set existed (once: a bot it holds is skipped, and every write since keeps it). Safe beside
 * running matches and from several processes: each call checks and writes in one script.
 * Returns how many bots it added.
 */
export async function backfillLeaderboardGames(redis: RedisClient, keys: StoreKeys): Promise<number> {
  const [listed, counted] = await Promise.all([
    redis.zcard(keys.leaderboard),
    redis.zcard(keys.leaderboardGames),
  ]);
  if (counted >= listed) return 0;
  const backfill = luaCommand<number>(redis, BACKFILL_LEADERBOARD_GAMES, undefined);
  let added = 0;
  for (let start = 0; start < listed; start += BACKFILL_BATCH) {
    const ids = await redis.zrange(keys.leaderboard, start, start + BACKFILL_BATCH - 1);
    if (ids.length === 0) break;
    added += await backfill(
      ids.length + 2,
      keys.leaderboard,
      keys.leaderboardGames,
      ...ids.map((id) => keys.bot(id)),
      ...ids,
    );
  }
  return added;
}

/** The tally field of a rated result: `<black id> <white id> <black score>` (the legacy list's line). */
export function ratedTallyField(result: { black: string; white: string; score: 0 | 0.5 | 1 }): string {
  return `${result.black} ${result.white} ${result.score}`;
}

/** How many legacy list entries one script call folds: a short, bounded stop for Redis. */
const FOLD_BATCH = 10_000;
/** Fields per HSCAN reply: each reply is parsed in one go on the caller's event loop. */
const SCAN_BATCH = 1_000;
/** Bot ratings read per pipeline, for the same reason. */
const RATING_BATCH = 1_000;
/** Rows turned into columns between two turns of the event loop. */
const YIELD_EVERY = 50_000;
/** A tally row's key packs (black, white, outcome) into one safe integer: at most 2^21 bots. */
const MAX_BOTS = 2 ** 21;

/**
 * Every rated result so far, as pairwise tallies: one row per ordered pairing (black, white) and
 * outcome. Reads O(pairings) fields in HSCAN batches, so the caller's event loop is never held for
 * long. First folds what is left of the legacy rated-results list into the tallies (once: each
 * entry leaves the list in the script that counts it). HSCAN may return a field twice; a row is
 * keyed by its field, so a repeat replaces it rather than adding to it.
 */
export async function ratedTallies(redis: RedisClient, keys: StoreKeys): Promise<TallyColumns> {
  const fold = luaCommand(redis, FOLD_RATED_RESULTS, 2);
  while ((await fold(keys.ratedResults, keys.ratedTallies, FOLD_BATCH)) > 0) {
    // Each call moved a batch; the next takes the rest.
  }
  const index = new Map<string, number>();
  const ids: string[] = [];
  const indexOf = (id: string) => {
    let i = index.get(id);
    if (i === undefined) {
      i = ids.push(id) - 1;
      if (i >= MAX_BOTS) throw new RangeError(`more than ${MAX_BOTS} rated bots`);
      index.set(id, i);
    }
    return i;
  };
  const counts = new Map<number, number>();
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(keys.ratedTallies, cursor, 'COUNT', SCAN_BATCH);
    for (let f = 0; f < flat.length; f += 2) {
      const [black = '', white = '', score = ''] = flat[f]!.split(' ');
      const outcome = OUTCOME[score];
      if (outcome === undefined) continue;
      counts.set((indexOf(black) * MAX_BOTS + indexOf(white)) * 4 + outcome, Number(flat[f + 1]));
    }
    cursor = next;
  } while (cursor !== '0');
  const rows = counts.size;
  const columns = {
    ids,
    a: new Int32Array(rows),
    b: new Int32Array(rows),
    games: new Float64Array(rows),
    scoreA: new Float64Array(rows),
  };
  let r = 0;
  for (const [key, count] of counts) {
    // Hundreds of thousands of rows: let the loop breathe between slices.
    if (r % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
    const outcome = key % 4;
    const pair = (key - outcome) / 4;
    columns.a[r] = Math.floor(pair / MAX_BOTS);
    columns.b[r] = pair % MAX_BOTS;
    columns.games[r] = count;
    columns.scoreA[r] = (count * outcome) / 2;
    r++;
  }
  return columns;
}

/** Black's score in a tally field, as its outcome: 0 a loss, 1 a draw, 2 a win (score × 2). */
const OUTCOME: Record<string, number> = { '0': 0, '0.5': 1, '1': 2 };

/** Each bot's Elo rating, `null` for a bot with no record; read in pipelined batches. */
export async function botRatings(
  redis: RedisClient,
  keys: StoreKeys,
  ids: readonly string[],
): Promise<(number | null)[]> {
  const ratings: (number | null)[] = [];
  for (let start = 0; start < ids.length; start += RATING_BATCH) {
    const pipeline = redis.pipeline();
    for (const id of ids.slice(start, start + RATING_BATCH)) pipeline.hget(keys.bot(id), 'rating');
    for (const [error, value] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      ratings.push(value === null ? null : Number(value));
    }
  }
  return ratings;
}

/**
 * The rating (Elo points) of each bot's saved Bradley–Terry strength, read in HSCAN batches: where
 * the next fit starts from. A field that does not parse is left out (that bot starts afresh).
 */
export async function savedStrengthRatings(
  redis: RedisClient,
  keys: StoreKeys,
): Promise<Map<string, number>> {
  const ratings = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(keys.strength, cursor, 'COUNT', SCAN_BATCH);
    for (let f = 0; f < flat.length; f += 2) {
      const rating = ratingOfStrength(flat[f + 1]!);
      if (rating !== null) ratings.set(flat[f]!, rating);
    }
    cursor = next;
  } while (cursor !== '0');
  return ratings;
}

function ratingOfStrength(json: string): number | null {
  try {
    const { rating } = JSON.parse(json) as Partial<Strength>;
    return typeof rating === 'number' && Number.isFinite(rating) ? rating : null;
  } catch {
    return null;
  }
}

export async function saveStrengths(
  redis: RedisClient,
  keys: StoreKeys,
  strengths: ReadonlyMap<string, Strength>,
  computedAt: number,
): Promise<void> {
  const multi = redis.multi().del(keys.strength);
  if (strengths.size > 0) {
    multi.hset(keys.strength, Object.fromEntries([...strengths].map(([id, s]) => [id, JSON.stringify(s)])));
  }
  await multi.set(keys.strengthComputedAt, String(computedAt)).exec();
}

export async function colorBalances(
  redis: RedisClient,
  keys: StoreKeys,
  ids: readonly string[],
): Promise<number[]> {
  if (ids.length === 0) return [];
  return (await redis.hmget(keys.colorBalance, ...ids)).map((value) => Number(value ?? 0));
}

export function activeMatchCounts(
  redis: RedisClient,
  keys: StoreKeys,
  ids: readonly string[],
): Promise<number[]> {
  return summedCounts(redis, ids, (id) => [keys.botMatches(id, 'queued'), keys.botMatches(id, 'running')]);
}

export function arenaMatchCounts(
  redis: RedisClient,
  keys: StoreKeys,
  ids: readonly string[],
): Promise<number[]> {
  return summedCounts(redis, ids, (id) => [keys.botArenaMatches(id)]);
}

/** For each of `ids`, the members of its sorted sets `setsOf(id)` together, in one round trip. */
async function summedCounts(
  redis: RedisClient,
  ids: readonly string[],
  setsOf: (id: string) => readonly string[],
): Promise<number[]> {
  const pipeline = redis.pipeline();
  const sets = ids.map(setsOf);
  for (const key of sets.flat()) pipeline.zcard(key);
  const counts = ((await pipeline.exec()) ?? []).map(([error, count]) => {
    if (error) throw error;
    return Number(count);
  });
  let at = 0;
  return sets.map((keys) => {
    let sum = 0;
    for (let i = 0; i < keys.length; i++) sum += counts[at++] ?? 0;
    return sum;
  });
}

export async function activeBots(redis: RedisClient, keys: StoreKeys): Promise<BotRecord[]> {
  const members = await redis.zrange(keys.activeBotsByName, 0, -1);
  const records = await readBots(redis, keys, members.map(idOfNameMember));
  return records.filter((bot): bot is BotRecord => bot !== null && bot.status === 'active');
}
