import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { AuthenticationError, InvalidRequestError, NotFoundError } from '../model/errors.ts';
import type { AccountRecord } from '../model/records.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { PasskeyRecord, SessionRecord, SessionVia, SignInStore } from '../store/sign-in-store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { type Principal, requireAccount } from './principal.ts';
import { hashToken } from './secrets.ts';

/** The site a passkey is bound to: its host name (the WebAuthn RP id) and its origin. */
export interface RelyingParty {
  readonly id: string;
  readonly origin: string;
}

export interface SignInServiceDeps {
  readonly accounts: Pick<AccountStore, 'getAccount'>;
  readonly signIns: SignInStore;
  readonly clock: Clock;
  readonly random: RandomBytes;
  /** How long a session lasts. */
  readonly sessionTtlMs: number;
}

/** A ceremony's options are good for this long (WebAuthn's own timeout is the same). */
const CEREMONY_MS = 5 * 60_000;
const RP_NAME = 'Reversi Arena';

/** A started session: its cookie's secret (for the browser alone) and its record. */
export interface StartedSession {
  readonly token: string;
  readonly session: SessionRecord;
  readonly account: AccountRecord;
}

interface CeremonyState {
  readonly challenge: string;
  /** The account adding a passkey; absent for a sign-in. */
  readonly accountId?: string;
}

/**
 * Signing people in, in the browser: passkeys (WebAuthn, discoverable credentials, so signing in
 * needs no name) and sessions kept by an HttpOnly cookie, each with a CSRF token. An account token
 * also starts a session. Passkeys are verified with @simplewebauthn/server; the arena keeps only
 * their public keys, and of a session only the hash of its cookie.
 */
export class SignInService {
  constructor(private readonly deps: SignInServiceDeps) {}

  /** Options to add a passkey to the calling account, and the ceremony that awaits its answer. */
  async passkeyRegistrationOptions(principal: Principal | null, rp: RelyingParty) {
    const account = await this.#account(requireAccount(principal));
    const existing = await this.deps.signIns.passkeysOf(account.id);
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.id,
      userName: account.name,
      userID: userHandleOf(account.id),
      attestationType: 'none',
      authenticatorSelection: {
        residentKey: 'required',
        requireResidentKey: true,
        userVerification: 'preferred',
      },
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.id,
        transports: passkey.transports as AuthenticatorTransportFuture[],
      })),
      timeout: CEREMONY_MS,
    });
    const ceremonyId = await this.#saveCeremony({ challenge: options.challenge, accountId: account.id });
    return { ceremonyId, options };
  }

  /** Verifies the authenticator's answer to a registration ceremony and keeps the passkey. */
  async addPasskey(
    principal: Principal | null,
    input: { readonly ceremonyId: string; readonly name?: string; readonly response: unknown },
    rp: RelyingParty,
  ): Promise<PasskeyRecord> {
    const accountId = requireAccount(principal);
    const ceremony = await this.#takeCeremony(input.ceremonyId);
    if (ceremony === null || ceremony.accountId !== accountId) throw unknownCeremony();
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: input.response as RegistrationResponseJSON,
        expectedChallenge: ceremony.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: false,
      });
    } catch (error) {
      throw badRegistration(error);
    }
    if (!verified.verified) throw badRegistration();
    const { credential } = verified.registrationInfo;
    const now = this.deps.clock.now();
    const passkey: PasskeyRecord = {
      id: credential.id,
      accountId,
      name: input.name ?? `passkey of ${new Date(now).toISOString().slice(0, 10)}`,
      publicKey: isoBase64URL.fromBuffer(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      createdAt: now,
      lastUsedAt: null,
    };
    await this.deps.signIns.savePasskey(passkey);
    return passkey;
  }

  async passkeys(principal: Principal | null): Promise<PasskeyRecord[]> {
    return this.deps.signIns.passkeysOf(requireAccount(principal));
  }

  async removePasskey(principal: Principal | null, id: string): Promise<void> {
    await this.deps.signIns.removePasskey(requireAccount(principal), id);
  }

  /** Options to sign in with any passkey of this site, and the ceremony that awaits its answer. */
  async passkeySignInOptions(rp: RelyingParty) {
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: 'preferred',
      timeout: CEREMONY_MS,
    });
    const ceremonyId = await this.#saveCeremony({ challenge: options.challenge });
    return { ceremonyId, options };
  }

  /** Verifies a passkey's assertion and starts a session for its account. */
  async signInWithPasskey(
    input: { readonly ceremonyId: string; readonly response: unknown },
    rp: RelyingParty,
  ): Promise<StartedSession> {
    const ceremony = await this.#takeCeremony(input.ceremonyId);
    if (ceremony === null || ceremony.accountId !== undefined) throw unknownCeremony();
    const response = input.response as AuthenticationResponseJSON;
    const passkey = typeof response?.id === 'string' ? await this.deps.signIns.passkey(response.id) : null;
    if (passkey === null) throw notVerified();
    // The user handle the authenticator keeps with the passkey must name the passkey's account.
    const handle = response.response?.userHandle;
    if (handle !== undefined && handle !== isoBase64URL.fromBuffer(userHandleOf(passkey.accountId))) {
      throw notVerified();
    }
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: ceremony.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: passkey.id,
          publicKey: isoBase64URL.toBuffer(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports as AuthenticatorTransportFuture[],
        },
        requireUserVerification: false,
      });
    } catch (error) {
      throw notVerified(error);
    }
    if (!verified.verified) throw notVerified();
    const now = this.deps.clock.now();
    await this.deps.signIns.passkeyUsed(passkey.id, verified.authenticationInfo.newCounter, now);
    return this.startSession(passkey.accountId, 'passkey');
  }

  /** Starts a session for an account its token (or an OpenID provider) proved. */
  async startSession(accountId: string, via: SessionVia): Promise<StartedSession> {
    const account = await this.#account(accountId);
    if (account.status !== 'active')
      throw new AuthenticationError('auth/invalid-token', 'The account is closed.');
    const { random, clock, sessionTtlMs, signIns } = this.deps;
    const token = Buffer.from(random(32)).toString('base64url');
    const now = clock.now();
    const session: SessionRecord = {
      accountId,
      csrfToken: Buffer.from(random(24)).toString('base64url'),
      via,
      createdAt: now,
      expiresAt: now + sessionTtlMs,
    };
    await signIns.createSession(hashToken(token), session);
    return { token, session, account };
  }

  /** The session a cookie holds, while it lasts and its account is open. */
  async session(token: string): Promise<SessionRecord | null> {
    const session = await this.deps.signIns.session(hashToken(token));
    if (session === null || session.expiresAt <= this.deps.clock.now()) return null;
    return session;
  }

  async signOut(token: string): Promise<void> {
    await this.deps.signIns.endSession(hashToken(token));
  }

  async #account(id: string): Promise<AccountRecord> {
    const account = await this.deps.accounts.getAccount(id);
    if (account === null) throw new NotFoundError('accounts/not-found', `No account has the id ${id}.`);
    return account;
  }

  async #saveCeremony(state: CeremonyState): Promise<string> {
    const id = Buffer.from(this.deps.random(18)).toString('base64url');
    await this.deps.signIns.saveCeremony(id, JSON.stringify(state), CEREMONY_MS);
    return id;
  }

  async #takeCeremony(id: string): Promise<CeremonyState | null> {
    const state = await this.deps.signIns.takeCeremony(id);
    return state === null ? null : (JSON.parse(state) as CeremonyState);
  }
}

/** The WebAuthn user handle of an account: its id's bytes (ids are public; no name or address). */
function userHandleOf(accountId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(accountId, 'utf8'));
}

function unknownCeremony(): InvalidRequestError {
  return new InvalidRequestError(
    'passkeys/unknown-ceremony',
    'This ceremony is unknown, used already or expired: ask for new options.',
    [{ path: 'body.ceremonyId', message: 'unknown, used or expired' }],
  );
}

function notVerified(cause?: unknown): AuthenticationError {
  return new AuthenticationError(
    'passkeys/not-verified',
    'The passkey did not verify.',
    cause === undefined ? {} : { cause },
  );
}

function badRegistration(cause?: unknown): InvalidRequestError {
  return new InvalidRequestError(
    'passkeys/not-verified',
    "The authenticator's answer did not verify.",
    [{ path: 'body.response', message: 'does not verify' }],
    cause === undefined ? {} : { cause },
  );
}
