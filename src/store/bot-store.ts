import type { BotChanges, BotRecord, NewBot, Page } from '../model/records.ts';

export interface BotQuery {
  /** Case-insensitive name prefix. */
  readonly namePrefix?: string;
  readonly includeRetired: boolean;
  readonly limit: number;
  readonly cursor?: string;
}

/** Bots: their records, names, tokens and the active list. */
export interface BotStore {
  /**
   * Stores a new bot; rejects with `ConflictError('bots/name-taken')` when the name is taken, and
   * `ConflictError('accounts/too-many-bots')` when its owner has `maxOwnedBots` active bots already.
   */
  createBot(bot: NewBot, options?: { readonly maxOwnedBots?: number }): Promise<void>;
  getBot(id: string): Promise<BotRecord | null>;
  getBots(ids: readonly string[]): Promise<(BotRecord | null)[]>;
  /** The id of the active bot whose token has this hash, if any. */
  findBotIdByTokenHash(tokenHash: string): Promise<string | null>;
  /** The id of the bot with this name (names are unique whatever their case), if any. */
  findBotIdByName(name: string): Promise<string | null>;
  /** Applies changes atomically; `null` when there is no such bot. */
  updateBot(id: string, changes: BotChanges): Promise<BotRecord | null>;
  /**
   * Ends a bot's matchmaking pause at `at` when it still holds then (its term is kept, for the
   * next pause's length). Null when the bot does not exist.
   */
  endPause(id: string, at: number): Promise<BotRecord | null>;
  /** Gives a bot a new token (and webhook secret); a retired bot gets none. */
  replaceSecrets(
    id: string,
    tokenHash: string,
    webhookSecret: string | null,
  ): Promise<'replaced' | 'not-found' | 'retired'>;
  /** Retires the bot: off the leaderboard and the active list, token revoked. Idempotent. */
  retireBot(id: string): Promise<void>;
  listBots(query: BotQuery): Promise<Page<BotRecord>>;
  /** Active bots, oldest first (for matchmaking). */
  activeBots(): Promise<BotRecord[]>;
}
