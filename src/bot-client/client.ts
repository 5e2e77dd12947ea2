import { Agent } from 'undici';
import { type Clock, type RandomBytes, systemClock } from '../clock.ts';
import { pooledRandomBytes } from '../random.ts';
import { parseBotAction } from './action.ts';
import { excerpt, readCapped } from './body.ts';
import { botConnector, isConnectPhaseError } from './connector.ts';
import { errorCode, faultFromError } from './faults.ts';
import { signedHeaders, webhookId } from './signing.ts';
import {
  type BotCallOutcome,
  type BotCallRequest,
  type BotClientOptions,
  type BotFault,
  EXCERPT_BYTES,
  MAX_RESPONSE_BYTES,
} from './types.ts';

const USER_AGENT = 'reversi-arena/1';

/** Failures to open a connection that may be retried once: nothing of the request was sent. */
const RETRYABLE_CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET']);

/** Builds failed outcomes stamped with the latency at the moment of failing. */
function failure(elapsed: () => number) {
  return (fault: Omit<BotFault, 'latencyMs'>): BotCallOutcome => ({
    ok: false,
    fault: { ...fault, latencyMs: elapsed() },
  });
}

/**
 * Calls push bots. Holds one keep-alive connection pool (an undici `Agent`) for all the bots it
 * calls; make one per worker process, reuse it for every turn, `close()` it on shutdown.
 *
 * Every call is bounded by its `timeoutMs` (connect, request and the whole response body), never
 * follows redirects, reads at most 64 kB of response, and (unless `allowPrivateAddresses`) refuses
 * to talk to non-public addresses, checked on the connected socket itself.
 *
 * @example
 * const bots = new BotClient({ allowPrivateAddresses: config.allowPrivateBotUrls });
 * const outcome = await bots.callBot({ url: bot.url, webhookSecret: bot.webhookSecret, state, timeoutMs: 1000 });
 * if (outcome.ok) play(position, { square: outcome.action.action, direction: outcome.action.direction }, rules);
 * await bots.close();
 */
export class BotClient {
  readonly #agent: Agent;
  readonly #now: () => number;
  readonly #clock: Clock;
  readonly #random: RandomBytes;
  #closed = false;

  constructor(options: BotClientOptions) {
    this.#now = options.now ?? (() => performance.now());
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? pooledRandomBytes();
    this.#agent = new Agent({
      connect: botConnector({ allowPrivateAddresses: options.allowPrivateAddresses }),
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4000,
    });
  }

  /**
   * Sends `state` to the bot and returns its action or its fault. Never throws for anything the bot
   * does: unreachable, slow, failing, redirecting or babbling bots all give `{ ok: false, fault }`.
   * Throws only when the caller's `signal` aborts (with its reason) or the client is closed.
   *
   * One retry, within the same deadline, when the connection is refused or reset while connecting;
   * every other fault is final.
   */
  async callBot(request: BotCallRequest): Promise<BotCallOutcome> {
    if (this.#closed) throw new Error('BotClient is closed');
    request.signal?.throwIfAborted();
    const start = this.#now();
    const elapsed = () => Math.max(0, Math.round(this.#now() - start));
    const fail = failure(elapsed);

    let target: URL;
    try {
      target = new URL(request.url);
    } catch {
      return fail({
        reason: 'bot-error',
        cause: 'invalid-url',
        message: `the bot URL is not a valid URL: ${request.url}`,
      });
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return fail({
        reason: 'bot-error',
        cause: 'invalid-url',
        message: `only http and https bot URLs are allowed, not ${target.protocol}`,
      });
    }

    const payload = JSON.stringify(request.state);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
    if (request.webhookSecret !== null) {
      const id = webhookId(request.state.matchId, request.state.ply, this.#random);
      Object.assign(headers, signedHeaders(request.webhookSecret, id, this.#clock.now(), payload));
    }

    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort(new Error(`the bot did not answer within ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    const onCallerAbort = () => deadline.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.#exchange(target, headers, payload, deadline.signal, elapsed);
        } catch (error) {
          if (request.signal?.aborted) throw request.signal.reason;
          if (timedOut) {
            return fail({
              reason: 'timeout',
              cause: 'timeout',
              message: `the bot did not answer within ${request.timeoutMs} ms`,
            });
          }
          const code = errorCode(error);
          const retry =
            attempt === 1 && isConnectPhaseError(error) && RETRYABLE_CONNECT_CODES.has(code ?? '');
          if (!retry) return { ok: false, fault: faultFromError(error, elapsed(), target.href) };
        }
      }
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** One request and its response. Throws what undici throws (network errors, aborts). */
  async #exchange(
    target: URL,
    headers: Record<string, string>,
    payload: string,
    signal: AbortSignal,
    elapsed: () => number,
  ): Promise<BotCallOutcome> {
    const fail = failure(elapsed);
    const response = await this.#agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers,
      body: payload,
      signal,
    });
    const status = response.statusCode;
    if (status < 200 || status > 299) {
      // Only the excerpt is read: an error page is no reason to download more.
      const { bytes } = await readCapped(response.body, EXCERPT_BYTES);
      const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
      return fail({
        reason: 'bot-error',
        cause: redirect ? 'redirect' : 'http-status',
        message: `the bot answered HTTP ${status}${redirect}`,
        status,
        body: excerpt(bytes, EXCERPT_BYTES),
      });
    }
    const tooLarge = `the response is larger than ${MAX_RESPONSE_BYTES} bytes`;
    const declared = Number(response.headers['content-length'] ?? 0);
    if (declared > MAX_RESPONSE_BYTES) {
      response.body.destroy();
      return fail({ reason: 'invalid-response', cause: 'too-large', message: tooLarge, status });
    }
    const { bytes, overflow } = await readCapped(response.body, MAX_RESPONSE_BYTES);
    const body = excerpt(bytes, EXCERPT_BYTES);
    if (overflow)
      return fail({ reason: 'invalid-response', cause: 'too-large', message: tooLarge, status, body });
    const parsed = parseBotAction(bytes.toString('utf8'));
    if (!parsed.ok) {
      return fail({
        reason: 'invalid-response',
        cause: 'not-an-action',
        message: parsed.message,
        status,
        body,
      });
    }
    return { ok: true, action: parsed.action, latencyMs: elapsed(), status };
  }

  /** Closes the pool: waits for calls in flight, then closes every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#agent.close();
  }
}
