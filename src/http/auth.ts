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
 * Resolves the caller once per request, before the rate limiter, so that only verified tokens get
 * budgets of their own. Anonymous calls get `null`. A malformed header or a token that matches
 * nothing is remembered, not thrown: the request counts against its address first, then
 * `refuseBadCredentials` refuses it, so a typo never silently turns into an anonymous call.
 */
export function identify(store: ArenaStore, adminToken: string | undefined): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = null;
    try {
      const token = bearerToken(req.headers.authorization);
      if (token !== null) res.locals.principal = await authenticate(token, store, adminToken);
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      res.locals.credentialsError = error;
    }
    next();
  };
}

/** Why `identify` could not verify the request's credentials, if it could not. */
export function credentialsError(res: Response): AuthenticationError | undefined {
  return res.locals.credentialsError as AuthenticationError | undefined;
}

/** Refuses a request whose credentials `identify` could not verify. */
export const refuseBadCredentials: RequestHandler = (_req, res, next) => {
  next(credentialsError(res));
};

export function principalOf(res: Response): Principal | null {
  return (res.locals.principal as Principal | null | undefined) ?? null;
}
