import { createHash } from 'node:crypto';
import type { RedisClient } from '../connections/redis-connection.ts';
import type { PasskeyRecord, SessionRecord, SessionVia, SignInStore } from '../store/sign-in-store.ts';
import { type StoreKeys, storeKeys } from './keys.ts';
import { readHashes } from './read.ts';

/** An OpenID subject's key: issuer and subject may be long and hold any character. */
const subjectKey = (issuer: string, subject: string) =>
  createHash('sha256').update(`${issuer}\n${subject}`).digest('base64url');

function decodePasskey(hash: Record<string, string>): PasskeyRecord | null {
  if (hash.id === undefined || hash.accountId === undefined || hash.publicKey === undefined) return null;
  return {
    id: hash.id,
    accountId: hash.accountId,
    name: hash.name ?? '',
    publicKey: hash.publicKey,
    counter: Number(hash.counter ?? 0),
    transports: hash.transports ? hash.transports.split(',') : [],
    createdAt: Number(hash.createdAt),
    lastUsedAt: hash.lastUsedAt === undefined ? null : Number(hash.lastUsedAt),
  };
}

/** Signing in on Redis, under the store's prefix (see keys.ts). */
export class RedisSignInStore implements SignInStore {
  readonly #keys: StoreKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = storeKeys(prefix);
  }

  async savePasskey(passkey: PasskeyRecord): Promise<void> {
    const k = this.#keys;
    await this.redis
      .multi()
      .hset(k.passkey(passkey.id), {
        id: passkey.id,
        accountId: passkey.accountId,
        name: passkey.name,
        publicKey: passkey.publicKey,
        counter: String(passkey.counter),
        transports: passkey.transports.join(','),
        createdAt: String(passkey.createdAt),
      })
      .sadd(k.accountPasskeys(passkey.accountId), passkey.id)
      .exec();
  }

  async passkey(id: string): Promise<PasskeyRecord | null> {
    return decodePasskey(await this.redis.hgetall(this.#keys.passkey(id)));
  }

  async passkeysOf(accountId: string): Promise<PasskeyRecord[]> {
    const ids = await this.redis.smembers(this.#keys.accountPasskeys(accountId));
    const found = (await readHashes(this.redis, ids.map(this.#keys.passkey))).map(decodePasskey);
    return found
      .filter((passkey): passkey is PasskeyRecord => passkey !== null)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async passkeyUsed(id: string, counter: number, at: number): Promise<void> {
    // Only a passkey still kept: one removed meanwhile is not written back.
    const key = this.#keys.passkey(id);
    if ((await this.redis.exists(key)) === 1) {
      await this.redis.hset(key, 'counter', String(counter), 'lastUsedAt', String(at));
    }
  }

  async removePasskey(accountId: string, id: string): Promise<void> {
    const k = this.#keys;
    if ((await this.redis.hget(k.passkey(id), 'accountId')) !== accountId) return;
    await this.redis.multi().del(k.passkey(id)).srem(k.accountPasskeys(accountId), id).exec();
  }

  async saveCeremony(id: string, state: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.#keys.ceremony(id), state, 'PX', ttlMs);
  }

  takeCeremony(id: string): Promise<string | null> {
    return this.redis.getdel(this.#keys.ceremony(id));
  }

  async createSession(tokenHash: string, session: SessionRecord): Promise<void> {
    const k = this.#keys;
    await this.redis
      .multi()
      .hset(k.session(tokenHash), {
        accountId: session.accountId,
        csrfToken: session.csrfToken,
        via: session.via,
        createdAt: String(session.createdAt),
        expiresAt: String(session.expiresAt),
      })
      .pexpireat(k.session(tokenHash), session.expiresAt)
      .sadd(k.accountSessions(session.accountId), tokenHash)
      .exec();
  }

  async session(tokenHash: string): Promise<SessionRecord | null> {
    const hash = await this.redis.hgetall(this.#keys.session(tokenHash));
    if (hash.accountId === undefined || hash.csrfToken === undefined) return null;
    return {
      accountId: hash.accountId,
      csrfToken: hash.csrfToken,
      via: (hash.via ?? 'token') as SessionVia,
      createdAt: Number(hash.createdAt),
      expiresAt: Number(hash.expiresAt),
    };
  }

  async endSession(tokenHash: string): Promise<void> {
    const k = this.#keys;
    const accountId = await this.redis.hget(k.session(tokenHash), 'accountId');
    const tx = this.redis.multi().del(k.session(tokenHash));
    if (accountId !== null) tx.srem(k.accountSessions(accountId), tokenHash);
    await tx.exec();
  }

  accountOfSubject(issuer: string, subject: string): Promise<string | null> {
    return this.redis.get(this.#keys.oidcSubject(subjectKey(issuer, subject)));
  }

  async linkSubject(issuer: string, subject: string, accountId: string): Promise<void> {
    const k = this.#keys;
    const key = subjectKey(issuer, subject);
    await this.redis
      .multi()
      .set(k.oidcSubject(key), accountId)
      .sadd(k.accountSubjects(accountId), key)
      .exec();
  }

  async forgetAccount(accountId: string): Promise<void> {
    const k = this.#keys;
    const [passkeys, sessions, subjects] = await Promise.all([
      this.redis.smembers(k.accountPasskeys(accountId)),
      this.redis.smembers(k.accountSessions(accountId)),
      this.redis.smembers(k.accountSubjects(accountId)),
    ]);
    await this.redis.del(
      ...passkeys.map(k.passkey),
      ...sessions.map(k.session),
      ...subjects.map(k.oidcSubject),
      k.accountPasskeys(accountId),
      k.accountSessions(accountId),
      k.accountSubjects(accountId),
    );
  }
}
