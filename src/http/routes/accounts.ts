import { type RequestHandler, Router } from 'express';
import type { AccountService } from '../../arena/accounts.ts';
import type { SignInService } from '../../arena/sign-in.ts';
import type { components } from '../../contract/index.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { relyingParty } from '../relying-party.ts';
import { createAccountBody, noQuery, passkeyIdParams, passkeyRegistrationBody } from '../schemas.ts';

export interface AccountsRouterDeps {
  readonly accounts: AccountService;
  readonly signIn: SignInService;
  readonly present: Presenter;
  /** The budget of POST /v1/accounts per client address. */
  readonly accountLimiter: RequestHandler;
  readonly publicUrl: string | undefined;
}

/** /v1/accounts: open an account, read it and its bots, rotate its token, add passkeys, close it. */
export function accountsRouter({
  accounts,
  signIn,
  present,
  accountLimiter,
  publicUrl,
}: AccountsRouterDeps): Router {
  const router = Router();

  router.post('/v1/accounts', accountLimiter, async (req, res) => {
    parse(noQuery, req.query, 'query');
    const body = parse(createAccountBody, req.body, 'body');
    const { account, token } = await accounts.create(body.name);
    const created: components['schemas']['CreatedAccount'] = { ...present.account(account, []), token };
    res.status(201).location('/v1/accounts/me').json(created);
  });

  router.get('/v1/accounts/me', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const viewer = principalOf(res);
    const [account, passkeys] = await Promise.all([accounts.me(viewer), signIn.passkeys(viewer)]);
    res.json(present.account(account, passkeys));
  });

  router.delete('/v1/accounts/me', async (req, res) => {
    parse(noQuery, req.query, 'query');
    await accounts.close(principalOf(res));
    res.status(204).end();
  });

  router.post('/v1/accounts/me/token', async (req, res) => {
    parse(noQuery, req.query, 'query');
    res.json({ token: await accounts.rotateToken(principalOf(res)) });
  });

  router.get('/v1/accounts/me/bots', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const viewer = principalOf(res);
    const owned = await accounts.bots(viewer);
    res.json({ items: owned.map((bot) => present.ownedBot(bot, viewer!)) });
  });

  router.post('/v1/accounts/me/passkeys/options', async (req, res) => {
    parse(noQuery, req.query, 'query');
    res.json(await signIn.passkeyRegistrationOptions(principalOf(res), relyingParty(req, publicUrl)));
  });

  router.post('/v1/accounts/me/passkeys', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const body = parse(passkeyRegistrationBody, req.body, 'body');
    const passkey = await signIn.addPasskey(principalOf(res), body, relyingParty(req, publicUrl));
    res.status(201).json(present.passkey(passkey));
  });

  router.delete('/v1/accounts/me/passkeys/:passkeyId', async (req, res) => {
    const { passkeyId } = parse(passkeyIdParams, req.params, 'params');
    await signIn.removePasskey(principalOf(res), passkeyId);
    res.status(204).end();
  });

  return router;
}
