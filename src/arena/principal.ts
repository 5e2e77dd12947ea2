import { AuthenticationError, PermissionError } from '../errors.ts';
import type { ArenaStore } from '../store/store.ts';
import { hashToken, secretsEqual } from './secrets.ts';

/** Who is calling: the operator (admin token) or a bot (its token). */
export type Principal = { readonly kind: 'admin' } | { readonly kind: 'bot'; readonly botId: string };

/**
 * Resolves a bearer token to a principal. A token that matches nothing (or a retired bot's) is an
 * `AuthenticationError`, never a silent anonymous call.
 */
export async function authenticate(
  token: string,
  store: ArenaStore,
  adminToken: string | undefined,
): Promise<Principal> {
  if (adminToken !== undefined && secretsEqual(token, adminToken)) return { kind: 'admin' };
  const botId = await store.findBotIdByTokenHash(hashToken(token));
  if (botId === null) throw new AuthenticationError('auth/invalid-token', 'The bearer token is not valid.');
  return { kind: 'bot', botId };
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
  if (who.kind === 'admin' || botIds.includes(who.botId)) return who;
  throw new PermissionError('auth/forbidden', `This token may not ${action}.`);
}
