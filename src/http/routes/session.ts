import { type Request, type Response, Router } from 'express';
import type { AccountService } from '../../arena/accounts.ts';
import { OIDC_CALLBACK_PATH, type OidcSignIn } from '../../arena/oidc-sign-in.ts';
import { requireAccount } from '../../arena/principal.ts';
import type { SignInService, StartedSession } from '../../arena/sign-in.ts';
import { ArenaError, AuthenticationError, NotFoundError } from '../../model/errors.ts';
import { principalOf, SESSION_COOKIE, sessionOf, sessionToken } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { relyingParty } from '../relying-party.ts';
import { noQuery, passkeyAssertionBody } from '../schemas.ts';

export interface SessionRouterDeps {
  readonly signIn: SignInService;
  /** Sign-in through an OpenID provider, when the deployment has one. */
  readonly oidc: OidcSignIn | undefined;
  readonly accounts: AccountService;
  readonly present: Presenter;
  readonly publicUrl: string | undefined;
}

/** Where the browser goes to sign in through the OpenID provider. */
export const OIDC_START_PATH = '/auth/oidc/start';

/**
 * Sets a started session's cookie: HttpOnly (no script reads it), SameSite=Lax (no other site's
 * form sends it), Secure when the request came over TLS, for the session's whole life.
 */
export function setSessionCookie(req: Request, res: Response, started: StartedSession): void {
  res.cookie(SESSION_COOKIE, started.token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure,
    path: '/',
    expires: new Date(started.session.expiresAt),
  });
}

/** /v1/session: a browser's session, signing in with a passkey or an account token, and out. */
export function sessionRouter({ signIn, oidc, accounts, present, publicUrl }: SessionRouterDeps): Router {
  const router = Router();

  router.get('/v1/session/providers', (req, res) => {
    parse(noQuery, req.query, 'query');
    res.json({
      passkeys: true,
      oidc: oidc === undefined ? null : { name: oidc.name, startUrl: OIDC_START_PATH },
    });
  });

  // The browser's round trip through the provider: pages, not API answers.
  router.get(OIDC_START_PATH, async (req, res) => {
    if (oidc === undefined)
      throw new NotFoundError('oidc/not-configured', 'This arena has no OpenID provider.');
    res.redirect(303, (await oidc.start(relyingParty(req, publicUrl))).href);
  });

  router.get(OIDC_CALLBACK_PATH, async (req, res) => {
    if (oidc === undefined)
      throw new NotFoundError('oidc/not-configured', 'This arena has no OpenID provider.');
    try {
      const started = await oidc.finish(new URL(req.originalUrl, relyingParty(req, publicUrl).origin));
      setSessionCookie(req, res, started);
      res.redirect(303, '/my-bots');
    } catch (error) {
      if (!(error instanceof ArenaError)) throw error;
      res.redirect(303, `/my-bots?signin=${encodeURIComponent(error.code)}`);
    }
  });

  router.get('/v1/session', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const session = sessionOf(res);
    if (session === null) {
      res.status(204).end();
      return;
    }
    res.json(present.session(session, await accounts.me(principalOf(res))));
  });

  router.post('/v1/session', async (req, res) => {
    parse(noQuery, req.query, 'query');
    // With the account's own token, not a session: a cookie cannot start another session.
    if (req.headers.authorization === undefined) {
      throw new AuthenticationError(
        'auth/missing-token',
        'Sign in with an account token: Authorization: Bearer rva_….',
      );
    }
    const started = await signIn.startSession(requireAccount(principalOf(res)), 'token');
    setSessionCookie(req, res, started);
    res.status(201).json(present.session(started.session, started.account));
  });

  router.delete('/v1/session', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const token = sessionToken(req);
    if (token !== null && sessionOf(res) !== null) await signIn.signOut(token);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.status(204).end();
  });

  router.post('/v1/session/passkey/options', async (req, res) => {
    parse(noQuery, req.query, 'query');
    res.json(await signIn.passkeySignInOptions(relyingParty(req, publicUrl)));
  });

  router.post('/v1/session/passkey', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const body = parse(passkeyAssertionBody, req.body, 'body');
    const started = await signIn.signInWithPasskey(body, relyingParty(req, publicUrl));
    setSessionCookie(req, res, started);
    res.status(201).json(present.session(started.session, started.account));
  });

  return router;
}
