import { parse as parseCookies } from 'cookie';
import type { Request, RequestHandler, Response } from 'express';
import { authenticate, type Principal, type TokenStores } from '../arena/principal.ts';
import { type ArenaError, AuthenticationError, PermissionError } from '../model/errors.ts';
import type { SessionRecord } from '../store/sign-in-store.ts';

/** The cookie a browser's session lives in (see SignInService). */
export const SESSION_COOKIE = 'arena_session';

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

/** Where a session cookie is looked up. */
export interface Sessions {
  session(token: string): Promise<SessionRecord | null>;
}

/** Methods that change nothing: a session cookie is enough for them; the others need the CSRF token too. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Requests that sign in or open something anew, which no session acts in: a stale cookie must not
 * keep a browser from signing in again.
 */
const SESSIONLESS = new Set([
  '/v1/session/passkey/options',
  '/v1/session/passkey',
  '/v1/accounts',
  '/v1/guests',
]);

/** The session cookie's value, if the request carries one. */
export function sessionToken(req: Request): string | null {
  const header = req.headers.cookie;
  if (header === undefined) return null;
  return parseCookies(header)[SESSION_COOKIE] ?? null;
}

/**
 * Resolves the caller once per request, before the rate limiter, so that only verified tokens get
 * budgets of their own. A bearer token wins; without one, a browser's session cookie signs its
 * account in, and a request that changes something must then carry the session's CSRF token
 * (`X-CSRF-Token`). Anonymous calls get `null`. A malformed header, a token that matches nothing
 * or a missing CSRF token is remembered, not thrown: the request counts against its address first,
 * then `refuseBadCredentials` refuses it, so a typo never silently turns into an anonymous call.
 */
export function identify(
  stores: TokenStores,
  adminToken: string | undefined,
  sessions: Sessions,
): RequestHandler {
  const identified: RequestHandler = async (req, res, next) => {
    res.locals.principal = null;
    try {
      const token = bearerToken(req.headers.authorization);
      if (token !== null) {
        res.locals.principal = await authenticate(token, stores, adminToken);
      } else {
        const cookie = sessionToken(req);
        const session = cookie === null || SESSIONLESS.has(req.path) ? null : await sessions.session(cookie);
        if (session !== null) {
          if (!SAFE_METHODS.has(req.method) && req.get('x-csrf-token') !== session.csrfToken) {
            throw new PermissionError(
              'auth/csrf',
              "A request made with the session cookie must send the session's csrfToken (GET /v1/session) as X-CSRF-Token.",
            );
          }
          res.locals.principal = { kind: 'account', accountId: session.accountId } satisfies Principal;
          res.locals.session = session;
        }
      }
    } catch (error) {
      if (!(error instanceof AuthenticationError || error instanceof PermissionError)) throw error;
      res.locals.credentialsError = error;
    }
    next();
  };
  // Most reads carry no credentials at all: they go on at once, without a promise.
  return (req, res, next) => {
    if (req.headers.authorization === undefined && req.headers.cookie === undefined) {
      res.locals.principal = null;
      next();
      return;
    }
    return identified(req, res, next);
  };
}

/** Why `identify` could not verify the request's credentials, if it could not. */
export function credentialsError(res: Response): ArenaError | undefined {
  return res.locals.credentialsError as ArenaError | undefined;
}

/** Refuses a request whose credentials `identify` could not verify. */
export const refuseBadCredentials: RequestHandler = (_req, res, next) => {
  next(credentialsError(res));
};

export function principalOf(res: Response): Principal | null {
  return (res.locals.principal as Principal | null | undefined) ?? null;
}

/** The session the request was signed in with, when a cookie signed it in. */
export function sessionOf(res: Response): SessionRecord | null {
  return (res.locals.session as SessionRecord | undefined) ?? null;
}

/** Who a principal is, for logs and rate-limit keys: never a token, only what it was verified to be. */
export function principalLabel(principal: Principal | null): string {
  if (principal === null) return 'anonymous';
  if (principal.kind === 'admin') return 'admin';
  return principal.kind === 'bot' ? principal.botId : principal.accountId;
}
