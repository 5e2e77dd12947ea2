/**
 * What signing in to an account keeps: passkeys (their public keys), the one-time challenges of
 * WebAuthn ceremonies, browser sessions (by the hash of their cookie) and links to OpenID
 * subjects. Only the browser holds a session's secret; only the authenticator a passkey's.
 */

export interface PasskeyRecord {
  /** The credential id, base64url. */
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The authenticator's signature counter, as last seen. */
  readonly counter: number;
  readonly transports: readonly string[];
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

export type SessionVia = 'passkey' | 'token' | 'oidc';

export interface SessionRecord {
  readonly accountId: string;
  /** What every state-changing request made with the session's cookie sends as `X-CSRF-Token`. */
  readonly csrfToken: string;
  readonly via: SessionVia;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface SignInStore {
  savePasskey(passkey: PasskeyRecord): Promise<void>;
  passkey(id: string): Promise<PasskeyRecord | null>;
  passkeysOf(accountId: string): Promise<PasskeyRecord[]>;
  /** Records a sign-in with the passkey: its new counter, and when. */
  passkeyUsed(id: string, counter: number, at: number): Promise<void>;
  /** Forgets the passkey if `accountId` owns it. */
  removePasskey(accountId: string, id: string): Promise<void>;

  /** Keeps a ceremony's state (its challenge) for `ttlMs`, to be taken once. */
  saveCeremony(id: string, state: string, ttlMs: number): Promise<void>;
  /** The ceremony's state, removed as it is read (a ceremony is answered once); null when gone. */
  takeCeremony(id: string): Promise<string | null>;

  /** Keeps a session under the hash of its cookie until its `expiresAt`. */
  createSession(tokenHash: string, session: SessionRecord): Promise<void>;
  session(tokenHash: string): Promise<SessionRecord | null>;
  endSession(tokenHash: string): Promise<void>;

  /** The account an OpenID subject signs in to, once linked. */
  accountOfSubject(issuer: string, subject: string): Promise<string | null>;
  linkSubject(issuer: string, subject: string, accountId: string): Promise<void>;

  /** Forgets everything an account signs in with: its passkeys, sessions and OpenID links. */
  forgetAccount(accountId: string): Promise<void>;
}
