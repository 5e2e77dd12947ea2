import type { BotRecord, RatingHistoryEntry, Strength } from '../model/records.ts';
import type { TallyColumns } from '../rating/bradley-terry.ts';

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
  /** `slow`: the slow pool's leaderboard, its rows' ratings the slow ones (and no strengths). */
  readonly pool?: 'slow';
}

export interface LeaderboardSplit {
  readonly ranked: LeaderboardRow[];
  readonly rankedTotal: number;
  readonly unranked: UnrankedRow[];
  readonly unrankedTotal: number;
  readonly strengthComputedAt: number | null;
}

/** Ratings: the leaderboard, rating histories, and what the Bradley–Terry fit reads and writes. */
export interface RatingStore {
  /** Every listed bot (active, guests aside) best rating first, ranked and unranked alike. */
  leaderboard(
    offset: number,
    limit: number,
  ): Promise<{ rows: LeaderboardRow[]; total: number; strengthComputedAt: number | null }>;
  /** A page of the ranked bots and, apart, the first unranked ones, split at once. */
  leaderboardSplit(query: LeaderboardSplitQuery): Promise<LeaderboardSplit>;
  /** A bot's rating changes, oldest first: the latest `limit` of them (all when left out). */
  ratingHistory(botId: string, limit?: number): Promise<RatingHistoryEntry[]>;
  /**
   * Every rated result so far, as tallies per ordered pairing (black, white) and outcome: O(pairings)
   * to read, however many results there are.
   */
  ratedTallies(): Promise<TallyColumns>;
  /** Replaces every bot's Bradley–Terry strength at once. */
  saveStrengths(strengths: ReadonlyMap<string, Strength>, computedAt: number): Promise<void>;
  /** Bots' colour balance: their matchmade games as black minus as white (see `MatchStore.createMatches`). */
  colorBalances(ids: readonly string[]): Promise<number[]>;
}
