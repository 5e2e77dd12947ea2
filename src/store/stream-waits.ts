import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { Redis, RedisOptions } from 'ioredis';

/** A stream entry as XREAD answers it: `[id, [field, value, …]]`. */
export type StreamEntry = [id: string, fields: string[]];

/** Lets its holder end the wait it was given to: `wait` is that wait while it lasts. */
export interface WaitHandle {
  wait: { cancel(): void } | undefined;
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
    /** Every stream's waiters, by key (the `WaitConnection`'s), to leave when this wait settles. */
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

  /** Settles the wait with `entries`; it leaves its stream's waiters. */
  done(entries: StreamEntry[]): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.handle?.wait === this) this.handle.wait = undefined;
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

/** The most entries one XREAD answers per stream. */
const ENTRIES_PER_READ = 100;
/**
 * How long one XREAD blocks at most. A change of the waited keys cuts it short at once (CLIENT
 * UNBLOCK); this bound only covers an unblock that reached Redis before the XREAD it was aimed at.
 */
const BLOCK_MS = 2000;

/**
 * The waits on the streams one blocking connection covers (see `StreamWaits`): a single
 * `XREAD BLOCK` names every stream someone waits on (each from the oldest id any of its waiters
 * has seen), and hands each waiter the entries past its own id.
 *
 * A blocked XREAD's streams cannot be changed, so a wait on a stream (or from an id) the XREAD in
 * flight does not cover cuts it short with `CLIENT UNBLOCK` from another connection (`unblock`),
 * and the next XREAD names the new set. Waits that end (answered, timed out, aborted) need no
 * re-issue: the next XREAD leaves them out.
 */
class WaitConnection {
  #connection: Redis | undefined;
  /** The blocking connection's CLIENT ID while it is connected and the id known. */
  #clientId: number | undefined;
  readonly #waiters = new Map<string, Set<StreamWait>>();
  /** The streams and ids the XREAD in flight waits on; undefined while none is in flight. */
  #blocked: Map<string, string> | undefined;
  #unblocking = false;
  /** A cut was asked for while an unblock was in flight; it may aim at a newer XREAD. */
  #cutWanted = false;
  /** The pause before the next try of an unblock that missed; doubles up to 100 ms, back to 1 on success. */
  #retryMs = 1;
  #running = false;
  #closed = false;
  /** Wakes the loop when it idles with nothing to wait on. */
  #kick: (() => void) | undefined;
  /**
   * Fails the XREAD in flight when its connection closes. ioredis, told not to resend commands
   * after a reconnect (`autoResendUnfulfilledCommands: false`), drops them without settling them:
   * the loop would wait for that XREAD forever.
   */
  #lost: ((error: Error) => void) | undefined;
  /** Resolves when the waits are closed. */
  readonly #stopped: Promise<void>;
  #stop = () => {};

  constructor(
    private readonly connect: () => Redis,
    private readonly unblock: (clientId: number) => Promise<unknown>,
  ) {
    this.#stopped = new Promise((resolve) => {
      this.#stop = resolve;
    });
  }

  /** See `StreamWaits.wait`. */
  wait(...[key, afterId, timeoutMs, signal, handle]: WaitArguments): Promise<StreamEntry[]> {
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
    this.#changed(key, afterId);
    return waiting;
  }

  /** Ends every wait (each answers `[]`) and closes the blocking connection. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiters of [...this.#waiters.values()]) for (const waiter of [...waiters]) waiter.done([]);
    this.#kick?.();
    this.#stop();
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.disconnect();
  }

  /** A wait began: start the loop, or cut the XREAD in flight if it does not cover the wait. */
  #changed(key: string, afterId: string): void {
    if (!this.#running) {
      this.#running = true;
      void this.#loop();
      return;
    }
    this.#kick?.();
    const blocked = this.#blocked;
    if (blocked === undefined) return;
    const from = blocked.get(key);
    if (from !== undefined && compareIds(from, afterId) <= 0) return;
    this.#cut();
  }

  /** Cuts the XREAD in flight short, retrying until it went through (or that XREAD answered). */
  #cut(): void {
    if (this.#unblocking) {
      this.#cutWanted = true;
      return;
    }
    const target = this.#blocked;
    const clientId = this.#clientId;
    if (target === undefined) return;
    this.#unblocking = true;
    this.#cutWanted = false;
    // A wait that came while this unblock was in flight may not be covered by the XREAD sent since.
    const cutNewer = () => {
      if (!this.#cutWanted) return;
      this.#cutWanted = false;
      if (this.#blocked !== undefined && this.#blocked !== target) this.#cut();
    };
    const retry = () => {
      this.#unblocking = false;
      // Still the same XREAD: the unblock came before Redis blocked on it, or the id was not known.
      // Backing off keeps an outage (every unblock refused at once) from spinning.
      this.#retryMs = Math.min(this.#retryMs * 2, 100);
      if (this.#blocked === target && !this.#closed) setTimeout(() => this.#cut(), this.#retryMs).unref();
      else cutNewer();
    };
    if (clientId === undefined) {
      retry();
      return;
    }
    this.unblock(clientId).then((unblocked) => {
      if (unblocked !== 1) return retry();
      this.#unblocking = false;
      this.#retryMs = 1;
      cutNewer();
    }, retry);
  }

  #blockingConnection(): Redis {
    if (this.#connection === undefined) {
      const connection = this.connect();
      // Errors reach the loop as a failed XREAD; the waits run on to their deadlines.
      connection.on('error', () => {});
      // Each reconnect gives the connection a new id (and a restarted Redis may give the old one
      // to another client): the loop asks again.
      connection.on('close', () => {
        this.#clientId = undefined;
        this.#lost?.(new Error('the blocking connection closed'));
      });
      this.#connection = connection;
    }
    return this.#connection;
  }

  async #loop(): Promise<void> {
    while (!this.#closed) {
      if (this.#waiters.size === 0) {
        await new Promise<void>((resume) => (this.#kick = resume));
        this.#kick = undefined;
        continue;
      }
      const connection = this.#blockingConnection();
      if (connection.status !== 'ready') {
        await ready(connection, this.#stopped);
        if (connection.status === 'end' && !this.#closed) {
          // Ended for good (it gave up reconnecting): the next pass makes another.
          this.#connection = undefined;
          await sleep(100);
        }
        continue;
      }
      const streams = new Map<string, string>();
      for (const [key, waiters] of this.#waiters) {
        let from: string | undefined;
        for (const { afterId } of waiters)
          if (from === undefined || compareIds(afterId, from) < 0) from = afterId;
        if (from !== undefined) streams.set(key, from);
      }
      this.#blocked = streams;
      let reply: [string, StreamEntry[]][] | null = null;
      try {
        // The id names the connection for CLIENT UNBLOCK. Asked for just before the XREAD, on its
        // connection, so it names the client the XREAD runs on and answers before the XREAD blocks.
        if (this.#clientId === undefined) {
          connection.client('ID').then(
            (id) => {
              if (this.#connection === connection) this.#clientId = Number(id);
            },
            () => {},
          );
        }
        const read = connection.xread(
          'COUNT',
          ENTRIES_PER_READ,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...streams.keys(),
          ...streams.values(),
        ) as Promise<[string, StreamEntry[]][] | null>;
        const lost = new Promise<never>((_, fail) => (this.#lost = fail));
        reply = await Promise.race([read, lost]);
      } catch {
        // Redis is away: try again shortly; the connection reconnects by itself.
        if (!this.#closed) await sleep(100);
      } finally {
        this.#blocked = undefined;
        this.#lost = undefined;
      }
      if (reply === null) continue;
      for (const [key, entries] of reply) {
        for (const waiter of [...(this.#waiters.get(key) ?? [])]) {
          const after = entries.filter(([id]) => compareIds(id, waiter.afterId) > 0);
          if (after.length > 0) waiter.done(after);
        }
      }
      // An event stream waits again as soon as it has written what it was handed: let it, so the
      // next XREAD covers it, rather than cutting that XREAD short at once (two reads a wake-up).
      await setImmediate();
    }
  }
}

/**
 * Resolves once `connection` is ready, has ended for good, or `stopped` resolves (the waits were
 * closed: a connection closed while it waited to reconnect emits neither). An XREAD sent before
 * would fail at once (no offline queue), and the loop would send another every 100 ms until then.
 */
async function ready(connection: Redis, stopped: Promise<void>): Promise<void> {
  if (connection.status === 'wait') connection.connect().catch(() => {});
  if (connection.status === 'end') return;
  let settle = () => {};
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  connection.on('ready', settle).on('end', settle);
  await Promise.race([settled, stopped]);
  connection.off('ready', settle).off('end', settle);
}

/** The options of a connection `StreamWaits` blocks on (on top of those it is duplicated from). */
export const BLOCKING_READ_OPTIONS = {
  // The loop sends an XREAD only to a ready connection: one queued while it reconnected would run
  // first after the reconnect, and block the fresh one behind it.
  enableOfflineQueue: false,
  maxRetriesPerRequest: null,
  // It blocks: no command timeout.
  commandTimeout: undefined,
  // A blocked XREAD resent after a reconnect would run under a new client id that the unblocking
  // side does not know: let it fail, and the loop sends it again with a fresh id.
  autoResendUnfulfilledCommands: false,
} satisfies RedisOptions;

/** How many blocking connections share a process' waits. */
export const WAIT_CONNECTIONS = 4;

/**
 * Waits on many Redis streams over a few blocking connections: a thousand waits are a thousand
 * promises, not a thousand sockets. Each stream's waits go to one connection, chosen by its key,
 * where one `XREAD BLOCK` covers them all (see `WaitConnection`).
 *
 * Why more than one: a wake-up ends the XREAD it answered, and the next names every stream its
 * connection covers again, so its cost grows with the waits a connection holds (1,100 streams:
 * about a millisecond of the API's CPU to build and send it). Four connections each name about a
 * quarter of them (measured: 0.35–0.40 ms an XREAD).
 *
 * Why not pub/sub: the writers of a stream (the worker opening a turn, the finish script's
 * `matchFinished`) would all have to publish too, and a message lost while the subscriber
 * reconnects would leave a wait asleep; the stream itself is the truth, so waiting on it loses
 * nothing. Keyspace notifications need server configuration (`notify-keyspace-events`).
 *
 * @example
 * const waits = new StreamWaits(() => redis.duplicate({ lazyConnect: true }), (id) => redis.client('UNBLOCK', id));
 * const entries = await waits.wait('arena:bot:b1:events', '0-0', 5000, signal);
 */
export class StreamWaits {
  readonly #connections: WaitConnection[];
  #closed = false;

  /**
   * @param connect makes a blocking connection, on its first wait (no command timeout: it blocks).
   * @param unblock sends `CLIENT UNBLOCK <id>` on another connection.
   */
  constructor(
    connect: () => Redis,
    unblock: (clientId: number) => Promise<unknown>,
    connections = WAIT_CONNECTIONS,
  ) {
    this.#connections = Array.from({ length: connections }, () => new WaitConnection(connect, unblock));
  }

  /**
   * The entries of stream `key` after `afterId`, as soon as there is one, or `[]` when `timeoutMs`
   * passes or `signal` aborts first. Entries already there answer at once. `handle.wait.cancel()`,
   * while the wait lasts, ends it with `[]`: cheaper than a signal of its own per waiter.
   */
  wait(...wait: WaitArguments): Promise<StreamEntry[]> {
    const connection = this.#connections[keyHash(wait[0]) % this.#connections.length] as WaitConnection;
    return connection.wait(...wait);
  }

  /** True once closed: a wait then answers `[]` at once. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Ends every wait (each answers `[]`) and closes the blocking connections. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#connections.map((connection) => connection.close()));
  }
}

/** FNV-1a of a key's UTF-16 code units: spreads streams over the connections, the same way each time. */
function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The most entries one read of a stream reader returns; a reader that gets this many reads again at once. */
const ENTRIES_PER_STREAM_READ = 100;

/** What a stream reader is made from (see `StreamReader`). */
export interface StreamReaderOptions<Event> {
  readonly redis: Redis;
  readonly waits: StreamWaits;
  readonly keyOf: (id: string) => string;
  readonly decode: (entries: readonly StreamEntry[]) => Event[];
  readonly signal: AbortSignal;
}

/**
 * Reads of the streams `keyOf(id)` for one waiter (an event stream, a long poll, a spectator): a
 * read that waits shares `waits`' blocking connection, one that does not goes over `redis`.
 * Aborting `signal` or closing the reader ends a wait in progress with `[]`. No signal of its own,
 * and methods rather than closures: thousands of readers are open at once.
 */
export class StreamReader<Event> implements WaitHandle {
  wait: { cancel(): void } | undefined = undefined;
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
 * Orders stream ids (`<ms>-<seq>`, each up to 64 bits) as Redis does. The XREAD loop compares
 * every waiter's id on each pass, so parts that fit a double exactly (15 digits: every real
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
