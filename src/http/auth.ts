import type { RequestHandler, Response } from 'express';
import { authenticate, type Principal } from '../arena/principal.ts';
import { AuthenticationError } from '../errors.ts';
import type { ArenaStore } from '../store/store.ts';

/** The bearer token of a request, if it sent one; a malformed Authorization header is an error. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const match = /^Bearer\s+([\x21-\x7e]{1,512})\s*$/i.exec(header);
  if (!match?.[1]) {
    throw new AuthenticationError(
      'auth/malformed-header',
      'The Authorization header must be "Bearer <token>".',
    );
  }
  return match[1];
}

/**
 * Resolves the caller once per request. Anonymous calls get `null`; a token that matches nothing is
 * refused at once, so a typo never silently turns into an anonymous call.
 */
export function resolvePrincipal(store: ArenaStore, adminToken: string | undefined): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    res.locals.principal = token === null ? null : await authenticate(token, store, adminToken);
    next();
  };
}

export function principalOf(res: Response): Principal | null {
  return (res.locals.principal as Principal | null | undefined) ?? null;
}
