import { AuthenticationError, PermissionError } from '../model/errors.ts';
import type { BotRecord } from '../model/records.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { BotStore } from '../store/bot-store.ts';
import { ACCOUNT_TOKEN_PREFIX, hashToken, secretsEqual } from './secrets.ts';

/** Who is calling: the operator (admin token), a bot (its token) or an account (its token, or a signed-in session). */
export type Principal =
  | { readonly kind: 'admin' }
  | { readonly kind: 'bot'; readonly botId: string }
  | { readonly kind: 'account'; readonly accountId: string };

/** Where tokens are looked up. */
export interface TokenStores {
  readonly bots: Pick<BotStore, 'findBotIdByTokenHash'>;
  readonly accounts: Pick<AccountStore, 'findAccountIdByTokenHash'>;
}

/**
 * Resolves a bearer token to a principal: an account's token by its prefix, else a bot's. A token
 * that matches nothing (a retired bot's, a closed account's) is an `AuthenticationError`, never a
 * silent anonymous call.
 */
export async function authenticate(
  token: string,
  stores: TokenStores,
  adminToken: string | undefined,
): Promise<Principal> {
  if (adminToken !== undefined && secretsEqual(token, adminToken)) return { kind: 'admin' };
  if (token.startsWith(ACCOUNT_TOKEN_PREFIX)) {
    const accountId = await stores.accounts.findAccountIdByTokenHash(hashToken(token));
    if (accountId !== null) return { kind: 'account', accountId };
  } else {
    const botId = await stores.bots.findBotIdByTokenHash(hashToken(token));
    if (botId !== null) return { kind: 'bot', botId };
  }
  throw new AuthenticationError('auth/invalid-token', 'The bearer token is not valid.');
}

export function requirePrincipal(principal: Principal | null): Principal {
  if (principal === null) {
    throw new AuthenticationError(
      'auth/missing-token',
      'This needs a bearer token: Authorization: Bearer <token>.',
    );
  }
  return principal;
}

/** Allows a bot's token only; answers the bot's id. */
export function requireBot(principal: Principal | null): string {
  const who = requirePrincipal(principal);
  if (who.kind !== 'bot') throw new PermissionError('auth/bot-token-required', 'This needs a bot token.');
  return who.botId;
}

/** Allows an account (its token or its session) only; answers the account's id. */
export function requireAccount(principal: Principal | null): string {
  const who = requirePrincipal(principal);
  if (who.kind !== 'account') {
    throw new PermissionError('auth/account-required', 'This needs an account token or a signed-in session.');
  }
  return who.accountId;
}

/** Allows the admin token only. */
export function requireAdmin(principal: Principal | null): void {
  const who = requirePrincipal(principal);
  if (who.kind !== 'admin') throw new PermissionError('auth/admin-required', 'This needs the admin token.');
}

/** Allows the admin, or one of the named bots. */
export function requireBotOrAdmin(
  principal: Principal | null,
  botIds: readonly string[],
  action: string,
): Principal {
  const who = requirePrincipal(principal);
  if (who.kind === 'admin' || (who.kind === 'bot' && botIds.includes(who.botId))) return who;
  throw new PermissionError('auth/forbidden', `This token may not ${action}.`);
}

/** Whether `principal` may act for `bot`: the admin, the bot itself, or the account that owns it. */
export function actsFor(principal: Principal | null, bot: Pick<BotRecord, 'id' | 'owner'>): boolean {
  if (principal === null) return false;
  if (principal.kind === 'admin') return true;
  if (principal.kind === 'bot') return principal.botId === bot.id;
  return bot.owner !== null && bot.owner.id === principal.accountId;
}

/** Allows the admin, the bot itself or its owner (see `actsFor`). */
export function requireActorFor(
  principal: Principal | null,
  bot: Pick<BotRecord, 'id' | 'owner'>,
  action: string,
): Principal {
  const who = requirePrincipal(principal);
  if (actsFor(who, bot)) return who;
  throw new PermissionError('auth/forbidden', `This token may not ${action}.`);
}
