import { randomUUID } from 'node:crypto';
import { luaCommand } from '../connections/lua-command.ts';
import { isConnectionError, primariesOf, type RedisClient } from '../connections/redis-connection.ts';
import type { BotStore } from '../store/bot-store.ts';
import type { GuestStore } from '../store/guest-store.ts';
import type { HealthCheck, LockStore, StoreHealth } from '../store/lock-store.ts';
import type { RandomBytes } from '../support/clock.ts';
import type { StoreKeys } from './keys.ts';
import { RELEASE_LOCK } from './lua-scripts.ts';

/** Guests on Redis: the set of active guests by when each was last seen. */
export class RedisGuestStore implements GuestStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
    private readonly bots: Pick<BotStore, 'retireBot'>,
  ) {}

  guestsIdleSince(cutoff: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.guests, '-inf', cutoff, 'LIMIT', 0, limit);
  }

  async retireGuest(id: string): Promise<void> {
    await this.bots.retireBot(id);
    await this.redis.del(this.keys.botEvents(id));
  }

  async touchGuest(id: string, at: number): Promise<void> {
    // XX: a guest retired meanwhile (and so off the set) stays off it; GT: time only moves on.
    await this.redis.zadd(this.keys.guests, 'XX', 'GT', at, id);
  }
}

/** Locks on Redis: a key per lock, holding its holder's id until released or expired. */
export class RedisLockStore implements LockStore {
  readonly #release;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {
    this.#release = luaCommand(redis, RELEASE_LOCK, 1);
  }

  async tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    const key = this.keys.lock(name);
    const holder = randomUUID();
    if ((await this.redis.set(key, holder, 'PX', ttlMs, 'NX')) !== 'OK') return null;
    return async () => {
      await this.#release(key, holder);
    };
  }
}

/**
 * Whether the store's connection answers. A cluster client stays ready while one of its primaries
 * is down and its slots fail over: the store is down for as long as any primary it knows is.
 */
export class RedisHealth implements HealthCheck {
  constructor(private readonly redis: RedisClient) {}

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  health(): StoreHealth {
    const ready =
      this.redis.status === 'ready' && primariesOf(this.redis).every((node) => node.status === 'ready');
    return ready ? 'up' : 'down';
  }

  isOutage(error: unknown): boolean {
    return error instanceof Error && isConnectionError(error);
  }
}

/**
 * The deployment's key of the client-origin HMAC: made once, by whichever process asks first,
 * and the same for every process after (so that one address is one origin whoever hashes it).
 */
export function clientOriginKey(redis: RedisClient, keys: StoreKeys, random: RandomBytes): Promise<string> {
  return deploymentKey(redis, keys.clientOriginKey, random);
}

/** A random key of the deployment's, kept at `at`: made by whichever process asks first, then shared. */
export async function deploymentKey(redis: RedisClient, at: string, random: RandomBytes): Promise<string> {
  await redis.set(at, Buffer.from(random(32)).toString('base64url'), 'NX');
  const key = await redis.get(at);
  if (key === null) throw new Error(`the key ${at} vanished as it was made`);
  return key;
}
