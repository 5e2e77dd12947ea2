import { luaCommand } from '../connections/lua-command.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import { ConflictError } from '../model/errors.ts';
import type { AccountRecord, NewAccount } from '../model/records.ts';
import type { AccountStore } from '../store/account-store.ts';
import { decodeAccount, newAccountFields } from './codec.ts';
import { type StoreKeys, storeKeys } from './keys.ts';
import { CLOSE_ACCOUNT, CREATE_ACCOUNT, REPLACE_ACCOUNT_TOKEN, STALE } from './lua-scripts.ts';

/** The accounts on Redis, under the store's prefix (see keys.ts). */
export class RedisAccountStore implements AccountStore {
  readonly #keys: StoreKeys;
  readonly #scripts;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = storeKeys(prefix);
    this.#scripts = {
      create: luaCommand(redis, CREATE_ACCOUNT, 3),
      replaceToken: luaCommand(redis, REPLACE_ACCOUNT_TOKEN, 3),
      close: luaCommand(redis, CLOSE_ACCOUNT, 3),
    };
  }

  async createAccount(account: NewAccount): Promise<void> {
    const k = this.#keys;
    const created = await this.#scripts.create(
      k.account(account.id),
      k.accountName(account.name),
      k.accountToken(account.tokenHash),
      account.id,
      ...newAccountFields(account),
    );
    if (created !== 1) throw new ConflictError('accounts/name-taken', `The name ${account.name} is taken.`);
  }

  async getAccount(id: string): Promise<AccountRecord | null> {
    return decodeAccount(await this.redis.hgetall(this.#keys.account(id)));
  }

  findAccountIdByTokenHash(tokenHash: string): Promise<string | null> {
    return this.redis.get(this.#keys.accountToken(tokenHash));
  }

  async replaceAccountToken(id: string, tokenHash: string): Promise<'replaced' | 'not-found' | 'closed'> {
    const k = this.#keys;
    // The old token's key depends on its hash, read first; the script checks it still holds.
    for (let attempt = 0; attempt < 100; attempt++) {
      const old = (await this.redis.hget(k.account(id), 'tokenHash')) ?? '';
      const outcome = await this.#scripts.replaceToken(
        k.account(id),
        k.accountToken(old),
        k.accountToken(tokenHash),
        old,
        id,
        tokenHash,
      );
      if (outcome !== STALE) return outcome === 1 ? 'replaced' : outcome === -1 ? 'closed' : 'not-found';
    }
    throw new Error(`could not replace the token of ${id}: it keeps changing`);
  }

  ownedBotIds(id: string, options: { readonly activeOnly?: boolean } = {}): Promise<string[]> {
    const key = options.activeOnly ? this.#keys.accountActiveBots(id) : this.#keys.accountBots(id);
    return this.redis.zrange(key, 0, -1, 'REV');
  }

  async closeAccount(id: string): Promise<'closed' | 'not-found' | 'bots-active'> {
    const k = this.#keys;
    const old = (await this.redis.hget(k.account(id), 'tokenHash')) ?? '';
    const outcome = await this.#scripts.close(
      k.account(id),
      k.accountToken(old),
      k.accountActiveBots(id),
      old,
    );
    return outcome === 1 ? 'closed' : outcome === 0 ? 'not-found' : 'bots-active';
  }
}
