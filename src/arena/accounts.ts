import { ConflictError, NotFoundError } from '../model/errors.ts';
import type { AccountRecord, BotRecord, Fault, MatchRecord } from '../model/records.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { SignInStore } from '../store/sign-in-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { newId } from '../support/ids.ts';
import { checkName } from './names.ts';
import { type Principal, requireAccount } from './principal.ts';
import { hashToken, newAccountToken } from './secrets.ts';

export interface AccountServiceDeps {
  readonly accounts: AccountStore;
  /** What the account signs in with, forgotten when it closes. */
  readonly signIns: Pick<SignInStore, 'forgetAccount'>;
  readonly stores: Pick<Stores, 'bots' | 'matches'>;
  readonly clock: Clock;
  readonly random: RandomBytes;
}

/** A bot as its owner sees it among its bots: with the last match that ended by its fault. */
export interface OwnedBot {
  readonly bot: BotRecord;
  /** The fault in full (the owner may see what only the bot's server knows), and its match. */
  readonly lastFault: { readonly match: MatchRecord; readonly fault: Fault } | null;
}

/** Times the closing of an account retires the bots it finds and tries again, before giving up. */
const CLOSE_ATTEMPTS = 10;

/**
 * Accounts: the people who own bots. An account registers bots with its token (`POST /v1/bots`),
 * sees them together with their pauses and faults, acts for them (changes, tokens, retirement) and
 * is what fair play counts as one operator. Bots without an account work as before.
 */
export class AccountService {
  constructor(private readonly deps: AccountServiceDeps) {}

  /** Registers an account; its token is answered once, and only its hash is kept. */
  async create(name: string): Promise<{ account: AccountRecord; token: string }> {
    const { accounts, clock, random } = this.deps;
    checkName(name);
    const token = newAccountToken(random);
    const now = clock.now();
    const id = newId('account', now, random);
    await accounts.createAccount({ id, name, tokenHash: hashToken(token), createdAt: now });
    return { account: { id, name, status: 'active', createdAt: now }, token };
  }

  /** The calling account. */
  me(principal: Principal | null): Promise<AccountRecord> {
    return this.#get(requireAccount(principal));
  }

  /** Every bot the calling account registered, newest first, each with its last fault. */
  async bots(principal: Principal | null): Promise<OwnedBot[]> {
    const { accounts, stores } = this.deps;
    const ids = await accounts.ownedBotIds(requireAccount(principal));
    const bots = (await stores.bots.getBots(ids)).filter((bot): bot is BotRecord => bot !== null);
    return Promise.all(
      bots.map(async (bot) => {
        const match = bot.lastFault === null ? null : await stores.matches.getMatch(bot.lastFault.matchId);
        const fault = match?.result?.fault;
        return { bot, lastFault: match && fault ? { match, fault } : null };
      }),
    );
  }

  /** A new token for the calling account; the old one stops working at once. */
  async rotateToken(principal: Principal | null): Promise<string> {
    const id = requireAccount(principal);
    const token = newAccountToken(this.deps.random);
    const outcome = await this.deps.accounts.replaceAccountToken(id, hashToken(token));
    if (outcome === 'not-found') throw notFound(id);
    if (outcome === 'closed')
      throw new ConflictError('accounts/closed', 'A closed account gets no new token.');
    return token;
  }

  /**
   * Closes the calling account: retires every bot it owns (their tokens stop working, their
   * records stay), then the account itself, whose token stops working. Safe to ask again.
   */
  async close(principal: Principal | null): Promise<void> {
    const id = requireAccount(principal);
    const { accounts, stores } = this.deps;
    for (let attempt = 0; attempt < CLOSE_ATTEMPTS; attempt++) {
      for (const botId of await accounts.ownedBotIds(id, { activeOnly: true }))
        await stores.bots.retireBot(botId);
      const outcome = await accounts.closeAccount(id);
      if (outcome === 'not-found') throw notFound(id);
      if (outcome === 'closed') {
        await this.deps.signIns.forgetAccount(id);
        return;
      }
    }
    throw new ConflictError(
      'accounts/busy',
      'The account keeps registering bots while it closes; try again.',
    );
  }

  async #get(id: string): Promise<AccountRecord> {
    const account = await this.deps.accounts.getAccount(id);
    if (account === null) throw notFound(id);
    return account;
  }
}

function notFound(id: string): NotFoundError {
  return new NotFoundError('accounts/not-found', `No account has the id ${id}.`);
}
