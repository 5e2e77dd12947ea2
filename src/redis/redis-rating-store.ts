import type { RedisClient } from '../connections/redis-connection.ts';
import type { RatingHistoryEntry, Strength } from '../model/records.ts';
import type { LeaderboardSplitQuery, RatingStore } from '../store/rating-store.ts';
import { HISTORY_FIELDS, historyEntryOf, historyFieldsOf, isJsonHistoryItem } from './codec.ts';
import type { StoreKeys } from './keys.ts';
import {
  backfillLeaderboardGames,
  colorBalances,
  leaderboardPage,
  leaderboardSplitPage,
  ratedTallies,
  saveStrengths,
} from './ratings.ts';
import { readHashFields } from './read.ts';

/** Ratings on Redis: the leaderboard's sets, rating histories (read from the matches), tallies and strengths. */
export class RedisRatingStore implements RatingStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  async ratingHistory(botId: string, limit?: number): Promise<RatingHistoryEntry[]> {
    const entries = await this.redis.lrange(
      this.keys.ratingHistory(botId),
      limit === undefined ? 0 : -limit,
      -1,
    );
    // Items are match ids (the entry is the match's record), or the JSON of an entry written before.
    const matches = (
      await readHashFields(
        this.redis,
        entries.filter((item) => !isJsonHistoryItem(item)).map((id) => this.keys.match(id)),
        HISTORY_FIELDS,
      )
    ).map(historyFieldsOf);
    let next = 0;
    return entries.flatMap((item) => {
      if (isJsonHistoryItem(item)) return [JSON.parse(item) as RatingHistoryEntry];
      const entry = historyEntryOf(matches[next++] ?? null, botId);
      return entry === null ? [] : [entry];
    });
  }

  leaderboard(offset: number, limit: number) {
    return leaderboardPage(this.redis, this.keys, offset, limit);
  }

  leaderboardSplit(query: LeaderboardSplitQuery) {
    return leaderboardSplitPage(this.redis, this.keys, query);
  }

  /**
   * Counts the rated games of the leaderboard's bots listed before the store kept them apart (see
   * `keys.leaderboardGames`); a no-op once done. The API runs it at start.
   */
  backfillLeaderboardGames(): Promise<number> {
    return backfillLeaderboardGames(this.redis, this.keys);
  }

  ratedTallies() {
    return ratedTallies(this.redis, this.keys);
  }

  saveStrengths(strengths: ReadonlyMap<string, Strength>, computedAt: number): Promise<void> {
    return saveStrengths(this.redis, this.keys, strengths, computedAt);
  }

  colorBalances(ids: readonly string[]): Promise<number[]> {
    return colorBalances(this.redis, this.keys, ids);
  }
}
