import { type ArenaClient, type ArenaClientOptions, createArenaClient, TokenRefusedError } from './client.js';
import { readEventStream, type SseBlock } from './sse.js';
import { BOT_EVENTS, type BotEvent } from './types.js';

/** The path of a bot's event stream in openapi.yaml (`streamMyEvents`). */
const EVENTS_PATH = '/v1/bots/me/events';

/** How long to wait before reconnecting until the stream's `retry:` says (the arena sends 2000). */
const DEFAULT_RETRY_MS = 2000;
/** The arena sends a keep-alive comment after 15 s of silence: a minute without a byte is a dead stream. */
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
const BACKOFF_MAX_MS = 30_000;
/** A connection open this long worked: the backoff starts over after it. */
const HEALTHY_MS = 60_000;

export interface BotEventStreamOptions extends ArenaClientOptions {
  readonly token: string;
  /** Resume after this event (a `Last-Event-ID` you kept); the stream starts from now without it. */
  readonly lastEventId?: string;
  /** Ends the iteration (without an error) and any wait between connections. */
  readonly signal?: AbortSignal;
  /** A connection silent this long is dropped and reopened (default 60 s). */
  readonly idleTimeoutMs?: number;
  /** Told before each wait to reconnect, for logs. */
  readonly onReconnect?: (reconnect: Reconnect) => void;
  /**
   * Told each time a connection opens (the arena answered 200): the bot is listening from then on,
   * and matchmaking counts it online; turns waiting for it come first on a fresh connection.
   */
  readonly onOpen?: () => void;
}

/** Why the stream is reopened, and after how long. */
export interface Reconnect {
  /**
   * `ended`: the arena ended the stream; `closing`: it said `arenaClosing` (a restart, not an
   * error); `refused`: it answered an error status (`status`, `problem`; a 429 is waited out for its
   * `Retry-After`); `failed`: the connection failed or fell silent (`error`).
   */
  readonly reason: 'ended' | 'closing' | 'refused' | 'failed';
  readonly delayMs: number;
  readonly status?: number;
  readonly problem?: unknown;
  readonly error?: unknown;
}

/** The connection fell silent for longer than `idleTimeoutMs`. */
export class StreamIdleError extends Error {
  override readonly name = 'StreamIdleError';
}

/**
 * A bot's event stream (`GET /v1/bots/me/events`, Server-Sent Events) as an async iterable of typed
 * events (`yourTurn` with the `MatchState` to play, `matchStarted`, `matchFinished`, `arenaClosing`).
 * It reconnects by itself, forever, until `signal` aborts: with `Last-Event-ID` so nothing is missed,
 * after the stream's `retry:` delay (longer, with jitter, while connections keep failing), after a
 * 429's `Retry-After`, and after the pause an `arenaClosing` asks for. A refused token (401, 403)
 * throws `TokenRefusedError`.
 *
 * **An event counts as handled when the loop asks for the next one.** `lastEventId` moves past an
 * event only then: if the loop's body throws (a move that could not be posted), iterate again and the
 * new connection resumes from the last handled event, so the arena tells that turn again. A `break`
 * or a `return` out of the loop leaves its event unhandled too (set `lastEventId` to its `id` if it was).
 *
 * @example
 * const events = new BotEventStream({ baseUrl: 'http://127.0.0.1:3000', token, signal });
 * for (;;) {
 *   try {
 *     for await (const event of events) {
 *       if (event.event === 'yourTurn') await play(event.data); // throws if the post fails
 *     }
 *     break; // only when `signal` aborted
 *   } catch (error) {
 *     if (error instanceof TokenRefusedError) throw error;
 *     await new Promise((resume) => setTimeout(resume, 1000)); // then resume from the last handled event
 *   }
 * }
 */
export class BotEventStream implements AsyncIterable<BotEvent> {
  /** The id of the last event handled: where a new connection resumes. */
  lastEventId: string | undefined;
  /** The wait before reconnecting, as the stream's `retry:` last set it. */
  retryMs = DEFAULT_RETRY_MS;
  readonly #client: ArenaClient;
  readonly #signal: AbortSignal;
  readonly #idleTimeoutMs: number;
  readonly #onReconnect: ((reconnect: Reconnect) => void) | undefined;
  readonly #onOpen: (() => void) | undefined;
  /** Connections in a row that failed or ended without an event. */
  #failures = 0;

  constructor(options: BotEventStreamOptions) {
    this.#client = createArenaClient(options);
    this.lastEventId = options.lastEventId;
    this.#signal = options.signal ?? new AbortController().signal;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.#onReconnect = options.onReconnect;
    this.#onOpen = options.onOpen;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<BotEvent, void, undefined> {
    while (!this.#signal.aborted) {
      const opened = Date.now();
      let reconnect: Reconnect;
      try {
        const ended = yield* this.#connection();
        if (Date.now() - opened >= HEALTHY_MS) this.#failures = 0;
        if (ended.closingMs !== undefined) reconnect = { reason: 'closing', delayMs: ended.closingMs };
        else reconnect = { reason: 'ended', delayMs: this.#nextDelay() };
      } catch (error) {
        if (this.#signal.aborted) return;
        if (error instanceof TokenRefusedError) throw error;
        if (error instanceof StreamRefusedError) {
          const { status, problem, retryAfterMs } = error;
          const delayMs = status === 429 && retryAfterMs !== undefined ? retryAfterMs : this.#nextDelay();
          reconnect = { reason: 'refused', delayMs, status, problem };
        } else reconnect = { reason: 'failed', delayMs: this.#nextDelay(), error };
      }
      this.#onReconnect?.(reconnect);
      await sleep(reconnect.delayMs, this.#signal);
    }
  }

  /** One connection: yields its events, and returns how it ended. */
  async *#connection(): AsyncGenerator<BotEvent, { closingMs?: number }, undefined> {
    const connection = new AbortController();
    const stop = () => connection.abort();
    this.#signal.addEventListener('abort', stop, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(
        () => connection.abort(new StreamIdleError('the event stream fell silent')),
        this.#idleTimeoutMs,
      );
    };
    try {
      touch();
      const lastEventId = this.lastEventId;
      const { data, error, response } = await this.#client.GET(EVENTS_PATH, {
        params: { header: lastEventId ? { 'Last-Event-ID': lastEventId } : {} },
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        signal: connection.signal,
      });
      if (response.status === 401 || response.status === 403)
        throw new TokenRefusedError(response.status, error);
      if (!response.ok || !data) {
        throw new StreamRefusedError(
          response.status,
          error,
          retryAfterMs(response.headers.get('retry-after')),
        );
      }
      this.#onOpen?.();
      // Every chunk, keep-alive comments included, is a sign of life. Dropping the connection
      // (the caller's abort, or silence) errors the stream read here too: aborting the request
      // alone did not always end a read already waiting on the body, which then waited for the
      // server's next chunk or for the socket to close (seen: 27 s).
      const watched = data.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          start(controller) {
            const drop = () => controller.error(connection.signal.reason);
            if (connection.signal.aborted) drop();
            else connection.signal.addEventListener('abort', drop, { once: true });
          },
          transform(chunk, controller) {
            touch();
            controller.enqueue(chunk);
          },
        }),
      );
      let closingMs: number | undefined;
      for await (const block of readEventStream(watched)) {
        if (block.retry !== undefined) this.retryMs = block.retry;
        const event = botEvent(block);
        if (event) {
          this.#failures = 0;
          if (event.event === 'arenaClosing') closingMs = event.data.reconnectAfterMs;
          // The time the loop takes to handle the event (a long think) is not the stream's silence.
          clearTimeout(idle);
          yield event;
          touch();
        }
        // Reached only when the loop asks for the next event: the one before is handled.
        if (block.id !== undefined) this.lastEventId = block.id || undefined;
      }
      return closingMs === undefined ? {} : { closingMs };
    } catch (error) {
      // The body's read rejects with a plain AbortError: say why the connection was dropped.
      throw connection.signal.aborted && !this.#signal.aborted ? connection.signal.reason : error;
    } finally {
      clearTimeout(idle);
      this.#signal.removeEventListener('abort', stop);
      connection.abort();
    }
  }

  /** The wait after a failure or an end: the stream's `retry`, or more (with jitter) as failures pile up. */
  #nextDelay(): number {
    this.#failures++;
    const backoff = Math.min(BACKOFF_MAX_MS, 1000 * 2 ** (this.#failures - 1)) * (0.8 + 0.4 * Math.random());
    return Math.round(Math.max(this.retryMs, this.#failures > 1 ? backoff : 0));
  }
}

/** The stream answered an error status other than a refused token. */
class StreamRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly problem: unknown,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`the event stream answered ${status}`);
  }
}

/**
 * A block as a typed event; null for a block that is no event, an event this client does not know
 * (the arena may add some) or one whose data is not JSON (skipped rather than read again forever).
 */
function botEvent(block: SseBlock): BotEvent | null {
  if (block.data === undefined || !(BOT_EVENTS as readonly string[]).includes(block.event ?? '')) return null;
  let data: unknown;
  try {
    data = JSON.parse(block.data);
  } catch {
    return null;
  }
  return { event: block.event, data, ...(block.id ? { id: block.id } : {}) } as BotEvent;
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Waits `ms`, or less when `signal` aborts (then it resolves, it does not reject). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
