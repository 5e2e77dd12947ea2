import { setTimeout } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { bullPrefix, rateLimitPrefix, signInPrefix } from '../config.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import type { LockStore } from '../store/lock-store.ts';
import { isSignInKey } from './keys.ts';
import { arenaKeyPatterns, scanBatches } from './maintenance.ts';

/** Where a copy stands, kept in the target so that a copy cut short resumes where it stopped. */
export interface CopyProgress {
  /** The source's SCAN cursor after the last batch written, `done` once every key is copied. */
  readonly cursor: string;
  /** Keys written so far (a resumed batch counts again: a key scanned twice is copied twice). */
  readonly copied: number;
}

export interface StoreCopy {
  /** A one-server store: the arena's store before the move. */
  readonly source: Redis;
  readonly sourcePrefix: string;
  /** Any topology: keys are written one by one, so each goes to the node of its own slot. */
  readonly target: RedisClient;
  readonly targetPrefix: string;
  /** Keys a SCAN step asks for, and so about how many are copied between two saves of progress. */
  readonly batch?: number;
  /** Told after each batch is written and its progress saved. */
  readonly onBatch?: (progress: CopyProgress) => void | Promise<void>;
}

export interface CopyOutcome {
  readonly copied: number;
  /** `already done`: an earlier run finished the copy, and this one wrote nothing. */
  readonly started: 'afresh' | 'resumed' | 'already done';
}

/** The key of the copy's progress under `targetPrefix` (a hash: source prefix, cursor, copied, doneAt). */
export const migrationKey = (targetPrefix: string) => `${targetPrefix}:migration`;

/** Why a copy will not start: said to the operator as it is. */
export class StoreCopyRefused extends Error {}

/**
 * Copies every key under `<sourcePrefix>:` of a one-server store to `<targetPrefix>:` of the target,
 * with its value and time to live (DUMP, PTTL, RESTORE … REPLACE), in SCAN batches. After each batch
 * the cursor is saved in the target (`migrationKey`): a copy that stops (killed, a lost connection)
 * starts again from there, re-copying at most one batch, which REPLACE makes harmless; a copy that
 * finished is not run again. The target must hold no other keys under its prefix: an arena already
 * running there would be overwritten. See docs/cluster.md, "Moving a store".
 */
export async function copyStore(copy: StoreCopy): Promise<CopyOutcome> {
  const { source, sourcePrefix, target, targetPrefix, batch = 500 } = copy;
  const progressKey = migrationKey(targetPrefix);
  const saved = await target.hgetall(progressKey);
  if (saved.cursor !== undefined && saved.sourcePrefix !== sourcePrefix)
    throw new StoreCopyRefused(
      `${progressKey} records a copy of the prefix ${saved.sourcePrefix}, not of ${sourcePrefix}`,
    );
  if (saved.cursor === 'done') return { copied: Number(saved.copied), started: 'already done' };
  if (saved.cursor === undefined && (await holdsArenaKeys(target, targetPrefix)))
    throw new StoreCopyRefused(
      `the target already holds keys under ${targetPrefix}: (an arena has run there); not copying over them`,
    );
  const started = saved.cursor === undefined ? 'afresh' : 'resumed';
  let cursor = saved.cursor ?? '0';
  let copied = Number(saved.copied ?? 0);
  // The queue's, the rate limits' and the sign-ins' keys go under the target's prefixes for them,
  // hash tags of their own on a cluster; the rest under the target's prefix. The source is one
  // server's: all but the queue's keys are under its prefix.
  const [sourceQueue, targetQueue] = [bullPrefix(sourcePrefix), bullPrefix(targetPrefix)];
  const [targetRate, targetSignIn] = [rateLimitPrefix(targetPrefix), signInPrefix(targetPrefix)];
  const renamed = (key: string) => {
    if (key.startsWith(`${sourceQueue}:`)) return `${targetQueue}${key.slice(sourceQueue.length)}`;
    const rest = key.slice(sourcePrefix.length + 1);
    const to = rest.startsWith('rate:') ? targetRate : isSignInKey(rest) ? targetSignIn : targetPrefix;
    return `${to}:${rest}`;
  };
  do {
    const [next, keys] = await source.scan(cursor, 'MATCH', `${sourcePrefix}:*`, 'COUNT', batch);
    copied += await copyKeys(source, target, keys, renamed);
    cursor = next === '0' ? 'done' : next;
    const doneAt = cursor === 'done' ? { doneAt: new Date().toISOString() } : {};
    await target.hset(progressKey, { sourcePrefix, cursor, copied, ...doneAt });
    await copy.onBatch?.({ cursor, copied });
  } while (cursor !== 'done');
  // Its keys were renamed on the way: a move at the API's start has nothing left to find.
  const signIns = signInKeysMove(targetPrefix);
  if (signIns !== undefined) await recordMoved(target, targetPrefix, signIns);
  return { copied, started };
}

/** The hash, under an arena's prefix, of the moves `moveKeys` has done: name → when it ended. */
export const movedKey = (prefix: string) => `${prefix}:moved`;

/** Records `move` as done under `prefix`: `moveKeys` then finds nothing to do. */
function recordMoved(redis: RedisClient, prefix: string, move: KeyMove): Promise<number> {
  return redis.hset(movedKey(prefix), move.name, new Date().toISOString());
}

/** A move of keys within one store, by `moveKeys`. */
export interface KeyMove {
  /** What it is called in `movedKey`, where its end is recorded. */
  readonly name: string;
  /** The keys it looks at (SCAN MATCH); `renamed` answers undefined for those it leaves. */
  readonly pattern: string;
  readonly renamed: (key: string) => string | undefined;
}

/**
 * Moves keys to new names in the same store, with their values and times to live: what a new
 * layout of the keys needs where an arena already runs (on a cluster, keys given a hash tag of
 * their own). Each batch is copied, then its old keys removed. One process moves at a time, under
 * a lock: another's copy made earlier and written late would bring back a key deleted since (an
 * ended session); the others wait for the move's end, recorded under `prefix` (`movedKey`), and a
 * process that finds it there does nothing. A mover that dies leaves the lock to expire, and the
 * next one moves again from the start (copies written twice are the same). Returns how many keys
 * this call moved.
 */
export async function moveKeys(
  redis: RedisClient,
  prefix: string,
  move: KeyMove,
  locks: LockStore,
): Promise<number> {
  const done = async () => (await redis.hget(movedKey(prefix), move.name)) !== null;
  for (;;) {
    if (await done()) return 0;
    const release = await locks.tryLock(`move:${move.name}`, MOVE_LOCK_MS);
    if (release === null) {
      await setTimeout(MOVE_WAIT_MS);
      continue;
    }
    try {
      if (await done()) return 0;
      let moved = 0;
      for await (const { server, keys } of scanBatches(redis, move.pattern)) {
        const names = new Map<string, string>();
        for (const key of keys) {
          const name = move.renamed(key);
          if (name !== undefined) names.set(key, name);
        }
        if (names.size === 0) continue;
        moved += await copyKeys(server, redis, [...names.keys()], (key) => names.get(key)!);
        const removal = server.pipeline();
        for (const key of names.keys()) removal.unlink(key);
        await removal.exec();
      }
      await recordMoved(redis, prefix, move);
      return moved;
    } finally {
      await release();
    }
  }
}
/** Long enough for a pass over millions of keys; a dead mover's starting successors wait this long. */
const MOVE_LOCK_MS = 120_000;
/** How often a waiting process looks for the move's end. */
const MOVE_WAIT_MS = 200;

/**
 * The move of an arena's sign-in keys (config.ts `signInPrefix`) from under its prefix to under
 * their own, where the two differ (on a cluster: `{arena}` to `{arena-sign-in}`); none on one server.
 */
export function signInKeysMove(prefix: string): KeyMove | undefined {
  const to = signInPrefix(prefix);
  if (to === prefix) return undefined;
  return {
    name: 'sign-in-keys',
    pattern: `${prefix}:*`,
    renamed: (key) => {
      const rest = key.slice(prefix.length + 1);
      return isSignInKey(rest) ? `${to}:${rest}` : undefined;
    },
  };
}

/** Copies `keys` (those still there) and returns how many. */
async function copyKeys(
  source: Redis,
  target: RedisClient,
  keys: readonly string[],
  renamed: (key: string) => string,
): Promise<number> {
  if (keys.length === 0) return 0;
  const read = source.pipeline();
  for (const key of keys) read.dumpBuffer(key).pttl(key);
  const replies = (await read.exec()) ?? [];
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < keys.length; i++) {
    const [dumpError, dump] = replies[2 * i] ?? [];
    const [ttlError, ttl] = replies[2 * i + 1] ?? [];
    if (dumpError || ttlError) throw dumpError ?? ttlError;
    // Gone between the SCAN and the DUMP (expired, or deleted): nothing to copy.
    if (dump === null || ttl === -2) continue;
    // RESTORE takes 0 for no expiry; a key about to expire keeps at least a millisecond.
    const ttlMs = (ttl as number) < 0 ? 0 : Math.max(1, ttl as number);
    writes.push(target.restore(renamed(keys[i]!), ttlMs, dump as Buffer, 'REPLACE'));
  }
  await Promise.all(writes);
  return writes.length;
}

async function holdsArenaKeys(redis: RedisClient, prefix: string): Promise<boolean> {
  for (const pattern of arenaKeyPatterns(prefix))
    for await (const _ of scanBatches(redis, pattern)) return true;
  return false;
}
