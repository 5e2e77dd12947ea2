import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import { type LuaCommand, luaCommand } from '../connections/lua-command.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import type { Clock } from '../support/clock.ts';

/**
 * KEYS: counter keys. ARGV: windowMs, then for each key the hits counted here since the last send
 * (give-backs subtracted) and the hits that open a new window when the key is gone (1 or 0).
 * Returns `total, pttl` per key; `0, -2` when the key is gone and nothing opened it.
 *
 * The key and its TTL are rate-limit-redis' own (`SET 1 PX windowMs` on a window's first hit, then
 * `INCR`), so a counter reads the same whichever store wrote it. Carried hits never open a window:
 * only a request asked at Redis does, so windows start where the exact store starts them.
 */
const COUNT_HITS = `
-- rate-limit batch: add each key's carried hits to its window
local windowMs = tonumber(ARGV[1])
local replies = {}
for i, key in ipairs(KEYS) do
  local carried = tonumber(ARGV[2 * i])
  local opening = tonumber(ARGV[2 * i + 1])
  local ttl = redis.call('PTTL', key)
  if ttl <= 0 then
    if opening > 0 then
      redis.call('SET', key, opening, 'PX', windowMs)
      replies[#replies + 1] = opening
      replies[#replies + 1] = windowMs
    else
      replies[#replies + 1] = 0
      replies[#replies + 1] = -2
    end
  else
    replies[#replies + 1] = redis.call('INCRBY', key, carried + opening)
    replies[#replies + 1] = ttl
  end
end
return replies
`;

/**
 * A limit under this many hits a window is counted at Redis on every request: it allows too few
 * requests for batching to save anything, and a small limit is where an overshoot shows most.
 */
const SMALLEST_BATCHED_LIMIT = 20;

/** Keys per script call of a flush, so one call never holds Redis for long. */
const KEYS_PER_CALL = 500;

/** One client's window as this process knows it. */
interface Window {
  /** The shared total in Redis at the last answer. */
  shared: number;
  /** Hits (give-backs subtracted) sent to Redis and not answered yet. */
  sending: number;
  /** Hits (give-backs subtracted) counted here and not sent yet. */
  unsent: number;
  /** When the window ends by this process' clock; a little early, as measured from when the read was sent. */
  endsAt: number;
  /** When the last answer's read was sent. */
  readAt: number;
  /** The newest send whose answer was applied: an older answer arriving late does not overwrite it. */
  applied: number;
}

export interface BatchedRateLimitStoreOptions {
  readonly redis: RedisClient;
  /** What the client's keys start with in Redis (src/redis/keys.ts `rateLimit`). */
  readonly prefix: string;
  /** The limit of a client's key: near it, every request is decided at Redis. */
  readonly limitOf: (key: string) => number;
  /** How often counted hits are sent to Redis and the shared totals read back. */
  readonly flushMs?: number;
  /** The share of the limit up to which a request may be decided here; past it, at Redis. */
  readonly localShare?: number;
  readonly clock?: Clock;
}

/**
 * A fixed-window counter store for express-rate-limit that counts in the process and sends the
 * hits to Redis in batches, instead of one script call per request.
 *
 * A request is decided here, with no round trip, when this process knows the client's window (it
 * has not ended), read the shared total less than two flush intervals ago, and the count (the shared
 * total plus the hits sent or counted here since) stays within `localShare` of the limit. Otherwise
 * it is decided at Redis, carrying the hits counted here: a client's first request in a window, the
 * first after a pause, every request past the share (so every refusal), every request under a limit
 * of fewer than 20 hits, and every request while Redis fails (which then fails as it did before).
 * Every `flushMs` the hits counted since the last flush go to Redis in one script call for all
 * keys, and the shared totals come back.
 *
 * Bounds:
 * - In one process the count is exact: every hit is counted once, in order, and a request decided at
 *   Redis carries every hit counted before it.
 * - Across processes, a request decided at Redis misses only the hits the other processes have
 *   counted and not sent yet: at most one flush interval (plus a round trip) of them. A request
 *   decided here also misses what the others sent since this process's last read (at most two
 *   intervals old), but only while the count it sees is under `localShare × limit`, so that
 *   headroom absorbs it unless the others took `(1 − localShare) × limit` in those intervals. So a
 *   window admits at most the limit plus what the other processes admitted for that client in the
 *   last flush interval (with the defaults, 100 ms and ½: a tenth of a second of the client's
 *   requests to the other processes), unless they took half its limit in three intervals, and
 *   never more than `limit + (N − 1) × localShare × limit` over N processes: a process decides at
 *   most `localShare × limit` hits of a window here, and every other hit at Redis.
 * - Windows open where the exact store opens them (a request asked at Redis on a missing key);
 *   hits carried to a window that has ended in Redis are dropped with it, never opening a new one.
 * - Hits counted here and not yet sent are sent by `shutdown()` (the API's close calls it); a batch
 *   whose call timed out is not sent again (it may have been counted), so it is lost instead.
 *
 * @example
 * const store = new BatchedRateLimitStore({ redis, prefix: 'arena:rate:', limitOf: () => 600 });
 * rateLimit({ windowMs: 60_000, limit: 600, store });
 */
export class BatchedRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private readonly windows = new Map<string, Window>();
  private readonly due = new Set<string>();
  private readonly redis: RedisClient;
  private readonly countHits: LuaCommand<number[]>;
  private readonly limitOf: (key: string) => number;
  private readonly flushMs: number;
  private readonly freshMs: number;
  private readonly localShare: number;
  private readonly clock: Clock;
  private windowMs = 60_000;
  private sends = 0;
  private forgotAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: BatchedRateLimitStoreOptions) {
    this.prefix = options.prefix;
    this.redis = options.redis;
    this.limitOf = options.limitOf;
    this.flushMs = options.flushMs ?? 100;
    // A busy key is read back every flush; two intervals leave room for the round trip and a late timer.
    this.freshMs = 2 * this.flushMs;
    this.localShare = options.localShare ?? 0.5;
    this.clock = options.clock ?? { now: () => Date.now() };
    this.countHits = luaCommand<number[]>(options.redis, COUNT_HITS, undefined);
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  increment(key: string): IncrementResponse | Promise<IncrementResponse> {
    const now = this.clock.now();
    // Here as well as in flush: clients that only ever go to Redis (one request a window, or a
    // limit too small to batch) never start a flush, and their windows must not pile up.
    this.forgetEnded(now);
    const window = this.windows.get(key);
    if (window !== undefined && now < window.endsAt && now - window.readAt < this.freshMs) {
      const count = window.shared + window.sending + window.unsent + 1;
      const limit = this.limitOf(key);
      if (limit >= SMALLEST_BATCHED_LIMIT && count <= limit * this.localShare) {
        window.unsent += 1;
        this.markDue(key);
        return { totalHits: count, resetTime: new Date(window.endsAt) };
      }
    }
    return this.incrementAtRedis(key, window);
  }

  /** Gives a hit back (a request that does not count): in the window this process knows, sent with the next flush. */
  decrement(key: string): void {
    const window = this.windows.get(key);
    if (window === undefined) return;
    window.unsent -= 1;
    this.markDue(key);
  }

  /** The client's count as this process knows it, without a round trip; undefined when it knows none. */
  get(key: string): ClientRateLimitInfo | undefined {
    const window = this.windows.get(key);
    if (window === undefined || this.clock.now() >= window.endsAt) return undefined;
    return {
      totalHits: Math.max(0, window.shared + window.sending + window.unsent),
      resetTime: new Date(window.endsAt),
    };
  }

  async resetKey(key: string): Promise<void> {
    this.windows.delete(key);
    this.due.delete(key);
    await this.redis.del(`${this.prefix}${key}`);
  }

  /** Sends every hit counted here now, and stops the timer. */
  async shutdown(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async incrementAtRedis(key: string, known: Window | undefined): Promise<IncrementResponse> {
    let window = known;
    if (window === undefined) {
      window = { shared: 0, sending: 0, unsent: 0, endsAt: 0, readAt: Number.NEGATIVE_INFINITY, applied: 0 };
      this.windows.set(key, window);
    }
    const [answer] = await this.send([{ key, window, opening: 1 }]);
    return { totalHits: Math.max(1, answer!), resetTime: new Date(window.endsAt) };
  }

  private markDue(key: string): void {
    this.due.add(key);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /**
   * Sends the hits counted since the last flush and reads the totals back, in one script call per
   * 500 keys; the timer calls it `flushMs` after a hit. After a failure the hits wait for the
   * client's next request, which is asked at Redis and carries them; after a timeout they are
   * dropped (the call may have counted them).
   */
  async flush(): Promise<void> {
    this.forgetEnded(this.clock.now());
    const batch: { key: string; window: Window; opening: number }[] = [];
    for (const key of this.due) {
      const window = this.windows.get(key);
      if (window !== undefined) batch.push({ key, window, opening: 0 });
    }
    this.due.clear();
    for (let i = 0; i < batch.length; i += KEYS_PER_CALL) {
      await this.send(batch.slice(i, i + KEYS_PER_CALL)).catch(() => {
        // The hits went back to `unsent` and the windows read as stale: the next request of each
        // client is asked at Redis, carries them, and meets the failure itself (a 503 while Redis
        // is down, as before).
      });
    }
  }

  /**
   * One script call for `batch`: carries each window's unsent hits (dropped when the window has
   * ended here: they belong to a window Redis has closed) and applies the totals read back.
   * Resolves to each key's total.
   */
  private async send(batch: readonly { key: string; window: Window; opening: number }[]): Promise<number[]> {
    const sentAt = this.clock.now();
    const sendId = ++this.sends;
    const carried = batch.map(({ window, opening }) => {
      const hits = sentAt < window.endsAt ? window.unsent : 0;
      window.unsent = 0;
      window.sending += hits + opening;
      return hits;
    });
    const args: (string | number)[] = [batch.length, ...batch.map(({ key }) => `${this.prefix}${key}`)];
    args.push(this.windowMs);
    batch.forEach(({ opening }, i) => {
      args.push(carried[i]!, opening);
    });
    let replies: number[];
    try {
      replies = await this.countHits(...args);
    } catch (error) {
      // A call that timed out may yet run in Redis: its hits are not sent again, so a client is
      // never counted twice (a lost batch undercounts once; an overcount would refuse it).
      const mayHaveRun = isTimeout(error);
      batch.forEach(({ window, opening }, i) => {
        window.sending -= carried[i]! + opening;
        if (!mayHaveRun) window.unsent += carried[i]!;
        window.readAt = Number.NEGATIVE_INFINITY;
      });
      throw error;
    }
    batch.forEach(({ window, opening }, i) => {
      window.sending -= carried[i]! + opening;
    });
    return batch.map(({ window }, i) => {
      const total = Number(replies[2 * i]);
      const ttl = Number(replies[2 * i + 1]);
      if (sendId > window.applied) {
        window.applied = sendId;
        window.shared = ttl > 0 ? total : 0;
        window.endsAt = ttl > 0 ? sentAt + ttl : 0;
        window.readAt = ttl > 0 ? sentAt : Number.NEGATIVE_INFINITY;
      }
      return total;
    });
  }

  /** Drops the windows that have ended and have nothing on the way, at most once a second (a walk over all). */
  private forgetEnded(now: number): void {
    if (now - this.forgotAt < 1000) return;
    this.forgotAt = now;
    for (const [key, window] of this.windows) {
      if (now >= window.endsAt && window.sending === 0 && !this.due.has(key)) this.windows.delete(key);
    }
  }
}

/** ioredis' `commandTimeout` error: the command was sent, and Redis may still run it. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Command timed out';
}
