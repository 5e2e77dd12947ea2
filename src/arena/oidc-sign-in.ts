import * as oidc from 'openid-client';
import { isHouseName } from '../house/roster.ts';
import { AuthenticationError, ConflictError } from '../model/errors.ts';
import type { SignInStore } from '../store/sign-in-store.ts';
import type { RandomBytes } from '../support/clock.ts';
import type { AccountService } from './accounts.ts';
import { isGuestName } from './guests.ts';
import type { RelyingParty, SignInService, StartedSession } from './sign-in.ts';

export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The provider's name, for the sign-in button. */
  readonly name: string;
}

export interface OidcSignInDeps {
  readonly settings: OidcSettings;
  readonly signIns: SignInStore;
  readonly signIn: SignInService;
  readonly accounts: AccountService;
  readonly random: RandomBytes;
}

/** Where the provider sends the browser back, under the arena's origin. */
export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';

/** A sign-in's round trip to the provider is good for this long. */
const ROUND_TRIP_MS = 10 * 60_000;

/** Accounts tried per name a new subject asks for (its name, then with 4 random hex digits). */
const NAME_ATTEMPTS = 5;

interface PendingSignIn {
  readonly verifier: string;
  readonly nonce: string;
}

/**
 * Sign-in through an OpenID Connect provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET): the
 * authorization code flow with PKCE, state and nonce, with openid-client. A subject signs in to the
 * account it is linked to; a new one gets an account of its own, named after its
 * `preferred_username` (or `name`), its token never shown (its owner may rotate one).
 */
export class OidcSignIn {
  #config: Promise<oidc.Configuration> | undefined;

  constructor(private readonly deps: OidcSignInDeps) {}

  get name(): string {
    return this.deps.settings.name;
  }

  /** The provider's authorization URL for a new sign-in, its state kept for the way back. */
  async start(rp: RelyingParty): Promise<URL> {
    const config = await this.#configuration();
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const state = oidc.randomState();
    const pending: PendingSignIn = { verifier, nonce };
    await this.deps.signIns.saveCeremony(`oidc-${state}`, JSON.stringify(pending), ROUND_TRIP_MS);
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${rp.origin}${OIDC_CALLBACK_PATH}`,
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
  }

  /**
   * Finishes a sign-in the provider sent back to `callbackUrl` (the arena's own URL of the request,
   * with its query): checks state, PKCE and nonce, then starts a session for the subject's account.
   */
  async finish(callbackUrl: URL): Promise<StartedSession> {
    const config = await this.#configuration();
    const state = callbackUrl.searchParams.get('state');
    const kept = state === null ? null : await this.deps.signIns.takeCeremony(`oidc-${state}`);
    if (kept === null) {
      throw new AuthenticationError('oidc/unknown-state', 'This sign-in is unknown or expired: start again.');
    }
    const pending = JSON.parse(kept) as PendingSignIn;
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: state!,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      throw new AuthenticationError('oidc/failed', 'The provider did not sign you in.', { cause: error });
    }
    if (claims === undefined) throw new AuthenticationError('oidc/failed', 'The provider sent no identity.');
    const { issuer } = this.deps.settings;
    const accountId =
      (await this.deps.signIns.accountOfSubject(issuer, claims.sub)) ?? (await this.#newAccount(claims));
    return this.deps.signIn.startSession(accountId, 'oidc');
  }

  /** An account for a subject seen for the first time, linked to it. */
  async #newAccount(claims: oidc.IDToken): Promise<string> {
    const wanted = accountNameFrom(claims as { preferred_username?: unknown; name?: unknown });
    for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
      const suffix = attempt === 0 ? '' : `-${Buffer.from(this.deps.random(2)).toString('hex')}`;
      const name = `${wanted.slice(0, 32 - suffix.length)}${suffix}`;
      try {
        const { account } = await this.deps.accounts.create(name);
        await this.deps.signIns.linkSubject(this.deps.settings.issuer, claims.sub, account.id);
        return account.id;
      } catch (error) {
        if (!(error instanceof ConflictError && error.code === 'accounts/name-taken')) throw error;
      }
    }
    throw new ConflictError('accounts/name-taken', 'Every account name tried for you is taken.');
  }

  #configuration(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret } = this.deps.settings;
    if (this.#config === undefined) {
      // Plain http only for a provider on this machine's network (local development, the tests).
      const execute = new URL(issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
      this.#config = oidc.discovery(
        new URL(issuer),
        clientId,
        clientSecret,
        oidc.ClientSecretBasic(clientSecret),
        {
          execute,
        },
      );
      // A failed discovery is asked again by the next sign-in.
      this.#config.catch(() => {
        this.#config = undefined;
      });
    }
    return this.#config;
  }
}

/** An account name from a subject's claims: 3 to 32 of A-Z a-z 0-9 _ -, never a reserved prefix. */
export function accountNameFrom(claims: {
  readonly preferred_username?: unknown;
  readonly name?: unknown;
}): string {
  const raw = [claims.preferred_username, claims.name].find(
    (value) => typeof value === 'string' && value.trim(),
  );
  const cleaned = String(raw ?? 'member')
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32);
  const named = cleaned.length >= 3 ? cleaned : `member-${cleaned}`.replace(/-$/, '');
  return isHouseName(named) || isGuestName(named) ? `member-${named}`.slice(0, 32) : named;
}
