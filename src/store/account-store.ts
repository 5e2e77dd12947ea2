import type { AccountRecord, NewAccount } from '../model/records.ts';

/**
 * Accounts: the people who own bots. A bot's own record names its owner (see BotRecord.owner) and
 * the bot store registers an owned bot in its account's sets (see ArenaStore.createBot).
 */
export interface AccountStore {
  /** Stores a new account; rejects with `ConflictError('accounts/name-taken')` when the name is taken. */
  createAccount(account: NewAccount): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  /** The id of the active account whose token has this hash, if any. */
  findAccountIdByTokenHash(tokenHash: string): Promise<string | null>;
  /** Gives an account a new token (the old one stops working at once); a closed account gets none. */
  replaceAccountToken(id: string, tokenHash: string): Promise<'replaced' | 'not-found' | 'closed'>;
  /** Every bot the account registered, newest first; with `activeOnly`, its active bots only. */
  ownedBotIds(id: string, options?: { readonly activeOnly?: boolean }): Promise<string[]>;
  /**
   * Closes the account, once its active bots are retired (the caller retires them; answers
   * `bots-active` while any is left, for the caller to retire them and ask again). Idempotent.
   */
  closeAccount(id: string): Promise<'closed' | 'not-found' | 'bots-active'>;
}
