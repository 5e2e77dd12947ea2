import { signInPrefix } from '../config.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import type { Stores } from '../store/store.ts';
import type { RandomBytes } from '../support/clock.ts';
import { type StoreKeys, storeKeys } from './keys.ts';
import { MoveAppends } from './move-appends.ts';
import { RedisAccountStore } from './redis-account-store.ts';
import { RedisBotStore } from './redis-bot-store.ts';
import { RedisMatchStore } from './redis-match-store.ts';
import { RedisRatingStore } from './redis-rating-store.ts';
import { RedisSignInStore } from './redis-sign-in-store.ts';
import { RedisSoloLeagueStore } from './redis-solo-store.ts';
import { RedisTournamentStore } from './redis-tournament-store.ts';
import {
  clientOriginKey,
  deploymentKey,
  RedisGuestStore,
  RedisHealth,
  RedisLockStore,
} from './redis-upkeep.ts';
import type { ReplicaWait } from './replica-wait.ts';

/** Every store of one Redis connection, and what its process does with them at start and at the end. */
export interface RedisStores extends Stores {
  readonly bots: RedisBotStore;
  readonly matches: RedisMatchStore;
  readonly ratings: RedisRatingStore;
  readonly keys: StoreKeys;
  /** The deployment's key of the client-origin HMAC (made once, shared by every process). */
  clientOriginKey(random: RandomBytes): Promise<string>;
  /** The deployment's key of the solo game's layouts (made once; see src/support/solo-layout-key.ts). */
  soloLayoutKey(random: RandomBytes): Promise<string>;
  /** Waits for the moves already sent; the stores have no connection of their own to close. */
  close(): Promise<void>;
}

/**
 * The stores of the arena on one Redis connection, under `prefix` (see keys.ts). A process makes
 * one set per connection: the moves its matches append are written together (see MoveAppends).
 *
 * @example
 * const stores = redisStores(redis, 'arena');
 * await stores.bots.getBot('bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH');
 */
export function redisStores(
  redis: RedisClient,
  prefix: string,
  options: {
    readonly replicaWait?: ReplicaWait;
    /** The sign-in store's connection, where its keys have a hash tag of their own (config.ts `signInPrefix`). */
    readonly signInRedis?: RedisClient;
  } = {},
): RedisStores {
  const keys = storeKeys(prefix);
  const appends = new MoveAppends(redis, keys);
  const bots = new RedisBotStore(redis, keys);
  return {
    keys,
    bots,
    matches: new RedisMatchStore(redis, keys, appends, options.replicaWait),
    ratings: new RedisRatingStore(redis, keys),
    guests: new RedisGuestStore(redis, keys, bots),
    soloLeague: new RedisSoloLeagueStore(redis, keys),
    tournaments: new RedisTournamentStore(redis, prefix),
    accounts: new RedisAccountStore(redis, prefix),
    signIns: new RedisSignInStore(options.signInRedis ?? redis, signInPrefix(prefix)),
    locks: new RedisLockStore(redis, keys),
    health: new RedisHealth(redis),
    clientOriginKey: (random) => clientOriginKey(redis, keys, random),
    soloLayoutKey: (random) => deploymentKey(redis, keys.soloLayoutKey, random),
    close: () => appends.flushed(),
  };
}
