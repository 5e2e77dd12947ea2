import type { ChannelWakeups } from './channel-wakeups.ts';
import type { RedisClient } from './redis-connection.ts';

/** A stream entry as XREAD answers it: `[id, [field, value, …]]`. */
export type StreamEntry = [id: string, fields: string[]];

/**
 * Lets its holder end the wait it was given to: `wait` is that wait while it lasts. `caughtUp` is
 * the StreamWaits' note of how far a read took its last wait (see `StreamWaits.wait`).
 */
export interface WaitHandle {
  wait: { cancel(): void } | undefined;
  caughtUp?: CaughtUp | undefined;
}

/**
 * A wait answered by a read that took it to the end of its stream: `id` is the last entry, and
 * `heard` the count of announcements the process had heard when the answer came.
 */
interface CaughtUp {
  readonly key: string;
  readonly id: string;
  readonly heard: number;
}

/** A wait's arguments: see `StreamWaits.wait`. */
type WaitArguments = [
  key: string,
  afterId: string,
  timeoutMs: number,
  signal: AbortSignal,
  handle?: WaitHandle,
];

/**
 * One wait on a stream, until it settles: with the entries after `afterId`, or with `[]` when its
 * timer fires, its signal aborts or its holder cancels it. An object with methods rather than a
 * handful of closures per wait: thousands are open at once, and each closure made per call costs
 * memory (and, under tsx, a `name` property defined on it at run time).
 */
class StreamWait {
  readonly #timer: ReturnType<typeof setTimeout>;
  #settled = false;

  constructor(
    readonly afterId: string,
    /** Every stream's waiters, by key (the `StreamWaits`'), to leave when this wait settles. */
    private readonly all: Map<string, Set<StreamWait>>,
    private readonly key: string,
    private readonly waiters: Set<StreamWait>,
    private readonly resolve: (entries: StreamEntry[]) => void,
    private readonly signal: AbortSignal,
    private readonly handle: WaitHandle | undefined,
    timeoutMs: number,
  ) {
    this.#timer = setTimeout(expire, timeoutMs, this);
    signal.addEventListener('abort', this, { once: true });
    if (handle) handle.wait = this;
    waiters.add(this);
  }

  /**
   * Settles the wait with `entries`; it leaves its stream's waiters. `caughtUp`, from a read that
   * reached the stream's end, is noted on the handle for its next wait.
   */
  done(entries: StreamEntry[], caughtUp?: CaughtUp): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.handle?.wait === this) this.handle.wait = undefined;
    if (this.handle && caughtUp) this.handle.caughtUp = caughtUp;
    clearTimeout(this.#timer);
    this.signal.removeEventListener('abort', this);
    this.waiters.delete(this);
    if (this.waiters.size === 0 && this.all.get(this.key) === this.waiters) this.all.delete(this.key);
    this.resolve(entries);
  }

  cancel(): void {
    this.done([]);
  }

  /** The signal aborted. */
  handleEvent(): void {
    this.done([]);
  }
}

function expire(wait: StreamWait): void {
  wait.cancel();
}

/** The most entries one read answers per stream; a stream read that full is read again. */
const ENTRIES_PER_READ = 100;
/** The most streams one read names: a resync after a reconnect reads every waited stream. */
const STREAMS_PER_READ = 500;
/** The pause before a read that failed (Redis away) is tried again. */
const RETRY_MS = 100;

/**
 * Waits on many Redis streams with no connection of their own: a thousand waits are a thousand
 * promises, not a thousand sockets, and a wake-up costs the same however many wait.
 *
 * Every writer of a waited stream publishes the stream's key on one channel in the same atomic
 * step as its XADD (see `keys.streamAppends`). One subscriber connection per process (shared with
 * the other channels it listens to) hears of each append; the waits on that stream then read it,
 * without blocking, over the process' ordinary connection. The stream stays the truth: a wait reads
 * it once when it begins (entries already there answer at once; `wait` tells the one exception),
 * and every wait reads it again when the subscriber comes back from a reconnect, since messages
 * published meanwhile are lost.
 *
 * Measured against the design it replaces (one `XREAD BLOCK` over every waited stream, re-sent
 * after each wake-up on four blocking connections): that re-send cost the API about 0.4 ms of CPU
 * per wake-up at 1,000 open streams and grew with them; here a wake-up is one short XREAD.
 *
 * @example
 * const waits = new StreamWaits(redis, wakeups, keys.streamAppends);
 * const entries = await waits.wait('arena:bot:b1:events', '0-0', 5000, signal);
 */
export class StreamWaits {
  readonly #waiters = new Map<string, Set<StreamWait>>();
  /** Streams to read on the next pass, woken since the last. */
  readonly #woken = new Set<string>();
  #passDue = false;
  /** Settles once the appends channel is listened to; undefined before the first wait (or after a failure). */
  #listening: Promise<unknown> | undefined;
  #unlisten: (() => void) | undefined;
  #closed = false;
  /** Whether the last listen or read failed: a run of failures is reported once. */
  #failing = false;
  /** Announcements heard (and comebacks of the subscriber, which stand for any): see `wait`. */
  #heard = 0;

  /**
   * @param redis reads the streams (no blocking command is sent on it).
   * @param wakeups the process' subscriber, on which `channel` names each stream appended to.
   * @param onError told of the first failure of a run (a refused SUBSCRIBE, a failed read): until
   *   one succeeds again, waits answer only at their deadlines, which an operator must hear of.
   */
  constructor(
    private readonly redis: RedisClient,
    private readonly wakeups: ChannelWakeups,
    private readonly channel: string,
    private readonly onError: (error: Error) => void = () => {},
  ) {}

  /**
   * The entries of stream `key` after `afterId`, as soon as there is one, or `[]` when `timeoutMs`
   * passes or `signal` aborts first. Entries already there answer at once. `handle.wait.cancel()`,
   * while the wait lasts, ends it with `[]`: cheaper than a signal of its own per waiter.
   *
   * A wait reads its stream once when it begins, for what was appended before it was there to be
   * woken, except the wait of a holder whose last wait a read took to the end of this stream, at
   * `afterId`, with nothing heard since that read was sent (an event stream waiting again as soon
   * as it has written what it was given). An append announced before the read was sent is in its
   * answer; one announced since would have counted, and one announced after this wait began wakes
   * it. A busy event stream so costs one read per wake-up, not two.
   */
  wait(...[key, afterId, timeoutMs, signal, handle]: WaitArguments): Promise<StreamEntry[]> {
    const caughtUp = handle?.caughtUp;
    if (handle) handle.caughtUp = undefined;
    if (this.#closed || signal.aborted) return Promise.resolve([]);
    let waiters = this.#waiters.get(key);
    if (waiters === undefined) {
      waiters = new Set();
      this.#waiters.set(key, waiters);
    }
    const mine = waiters;
    const waiting = new Promise<StreamEntry[]>((resolve) => {
      new StreamWait(afterId, this.#waiters, key, mine, resolve, signal, handle, timeoutMs);
    });
    const missedNothing =
      caughtUp !== undefined &&
      caughtUp.key === key &&
      caughtUp.id === afterId &&
      caughtUp.heard === this.#heard &&
      this.#unlisten !== undefined;
    if (missedNothing) return waiting;
    // Read once the channel is heard: an append after that read wakes the wait, one before it is read.
    this.#listen().then(
      () => this.#wake(key),
      () => {},
    );
    return waiting;
  }

  /** True once closed: a wait then answers `[]` at once. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Ends every wait (each answers `[]`) and stops listening. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiters of [...this.#waiters.values()]) for (const waiter of [...waiters]) waiter.done([]);
    this.#unlisten?.();
  }

  #listen(): Promise<unknown> {
    this.#listening ??= this.wakeups
      .listen(this.channel, (key) => {
        this.#heard++;
        this.#wake(key);
      })
      .then((unlisten) => {
        if (this.#closed) unlisten();
        else this.#unlisten = unlisten;
      })
      .catch((error: unknown) => {
        // Listen again shortly (or at the next wait), then read every waited stream.
        this.#listening = undefined;
        if (!this.#closed) setTimeout(() => this.#relisten(), RETRY_MS).unref();
        this.#failed(error);
        throw error;
      });
    return this.#listening;
  }

  #relisten(): void {
    if (this.#closed || this.#waiters.size === 0) return;
    this.#listen().then(
      () => {
        this.#heard++;
        this.#wake(undefined);
      },
      () => {},
    );
  }

  /** Stream `key` was appended to (no key: any may have been); its waits read it on the next pass. */
  #wake(key: string | undefined): void {
    if (key === undefined) for (const waited of this.#waiters.keys()) this.#woken.add(waited);
    else if (this.#waiters.has(key)) this.#woken.add(key);
    else return;
    if (this.#passDue) return;
    this.#passDue = true;
    // Every append heard in this turn of the event loop is read by one XREAD.
    setImmediate(() => this.#pass());
  }

  #pass(): void {
    this.#passDue = false;
    const keys = [...this.#woken].filter((key) => this.#waiters.has(key));
    this.#woken.clear();
    for (let i = 0; i < keys.length; i += STREAMS_PER_READ)
      void this.#read(keys.slice(i, i + STREAMS_PER_READ));
  }

  #failed(error: unknown): void {
    if (this.#failing || this.#closed) return;
    this.#failing = true;
    try {
      this.onError(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // A listener that throws must not stop the retries that bring the waits back.
    }
  }

  /** Reads `keys`, each from the oldest id its waits have seen, and hands each wait its entries. */
  async #read(keys: readonly string[]): Promise<void> {
    const ids = keys.map((key) => oldestId(this.#waiters.get(key)));
    // Counted as the read leaves, not as it answers: an append announced before it left is in its
    // answer; one announced while it is out may not be, and must make the holder's next wait read.
    const heard = this.#heard;
    let reply: [string, StreamEntry[]][] | null;
    try {
      reply = (await this.redis.xread('COUNT', ENTRIES_PER_READ, 'STREAMS', ...keys, ...ids)) as
        | [string, StreamEntry[]][]
        | null;
    } catch (error) {
      if (this.#closed) return;
      this.#failed(error);
      setTimeout(() => {
        for (const key of keys) this.#wake(key);
      }, RETRY_MS).unref();
      return;
    }
    this.#failing = false;
    const fromIds = new Map(keys.map((key, i) => [key, ids[i] as string]));
    for (const [key, entries] of reply ?? []) {
      const from = fromIds.get(key) ?? '0-0';
      // A full read may have stopped short of the stream's end (and of a later wait's entries).
      const full = entries.length === ENTRIES_PER_READ;
      const last = entries.at(-1)?.[0];
      const caughtUp = full || last === undefined ? undefined : { key, id: last, heard };
      for (const waiter of [...(this.#waiters.get(key) ?? [])]) {
        // A wait that began since, from an older id, is not covered: its own read serves it.
        if (compareIds(waiter.afterId, from) < 0) continue;
        const after = entries.filter(([id]) => compareIds(id, waiter.afterId) > 0);
        if (after.length > 0) waiter.done(after, caughtUp);
      }
      if (full) this.#wake(key);
    }
  }
}

/** The oldest id any of `waiters` has seen: a read from it covers them all. */
function oldestId(waiters: ReadonlySet<StreamWait> | undefined): string {
  let from: string | undefined;
  for (const { afterId } of waiters ?? [])
    if (from === undefined || compareIds(afterId, from) < 0) from = afterId;
  return from ?? '0-0';
}

/** The most entries one read of a stream reader returns; a reader that gets this many reads again at once. */
const ENTRIES_PER_STREAM_READ = 100;

/** What a stream reader is made from (see `StreamReader`). */
export interface StreamReaderOptions<Event> {
  readonly redis: RedisClient;
  readonly waits: StreamWaits;
  readonly keyOf: (id: string) => string;
  readonly decode: (entries: readonly StreamEntry[]) => Event[];
  readonly signal: AbortSignal;
}

/**
 * Reads of the streams `keyOf(id)` for one waiter (an event stream, a long poll, a spectator): a
 * read that waits is one more wait of `waits`, one that does not goes over `redis`.
 * Aborting `signal` or closing the reader ends a wait in progress with `[]`. No signal of its own,
 * and methods rather than closures: thousands of readers are open at once.
 */
export class StreamReader<Event> implements WaitHandle {
  wait: { cancel(): void } | undefined = undefined;
  caughtUp: WaitHandle['caughtUp'] = undefined;
  #closed = false;

  constructor(private readonly options: StreamReaderOptions<Event>) {}

  async read(id: string, afterId: string, waitMs: number): Promise<Event[]> {
    if (this.ended) return [];
    const { redis, waits, keyOf, decode, signal } = this.options;
    const stream = keyOf(id);
    if (waitMs > 0) return decode(await waits.wait(stream, afterId, waitMs, signal, this));
    try {
      const reply = (await redis.xread('COUNT', ENTRIES_PER_STREAM_READ, 'STREAMS', stream, afterId)) as
        | [string, StreamEntry[]][]
        | null;
      return decode(reply?.[0]?.[1] ?? []);
    } catch (error) {
      if (this.ended) return [];
      throw error;
    }
  }

  close(): void {
    this.#closed = true;
    this.wait?.cancel();
  }

  get ended(): boolean {
    return this.#closed || this.options.signal.aborted || this.options.waits.closed;
  }
}

/**
 * Whether stream `key` may have dropped entries that came after `id`: its oldest entry is newer
 * than `id`. The arena's streams are only trimmed from their oldest end (`MAXLEN`), so an entry
 * after `id` that is not there was trimmed. A missing or empty stream has dropped nothing.
 */
export async function trimmedPast(redis: RedisClient, key: string, id: string): Promise<boolean> {
  const [first] = await redis.xrange(key, '-', '+', 'COUNT', 1);
  return first !== undefined && compareIds(first[0], id) > 0;
}

/**
 * Orders stream ids (`<ms>-<seq>`, each up to 64 bits) as Redis does. Every read compares each
 * waiter's id of its streams, so parts that fit a double exactly (15 digits: every real
 * millisecond time) are compared as numbers, without the arrays and BigInts of a general parse.
 */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const aDash = a.indexOf('-');
  const bDash = b.indexOf('-');
  const ms = comparePart(aDash < 0 ? a : a.slice(0, aDash), bDash < 0 ? b : b.slice(0, bDash));
  if (ms !== 0) return ms;
  return comparePart(aDash < 0 ? '' : a.slice(aDash + 1), bDash < 0 ? '' : b.slice(bDash + 1));
}

/** Orders two decimal numbers (a missing part, `''`, is 0). */
function comparePart(a: string, b: string): number {
  return a.length <= 15 && b.length <= 15 ? order(Number(a), Number(b)) : order(BigInt(a), BigInt(b));
}

function order<T extends number | bigint>(x: T, y: T): number {
  return x === y ? 0 : x < y ? -1 : 1;
}
