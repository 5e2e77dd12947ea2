import type { Resolver } from 'node:dns/promises';
import { Agent, type Dispatcher } from 'undici';
import { z } from 'zod';
import type { components } from '../contract/index.ts';
import { DECLINE_REASONS } from '../model/records.ts';
import { type Clock, type RandomBytes, systemClock } from '../support/clock.ts';
import { pooledRandomBytes } from '../support/random.ts';
import { parseBotAction } from './action.ts';
import { excerpt } from './body.ts';
import { botConnector, botResolver, isConnectPhaseError } from './connector.ts';
import { type Answer, type BodyCaps, Exchange } from './exchange.ts';
import { errorCode, faultFromError } from './faults.ts';
import { boundedMemo } from './memo.ts';
import { webhookId, webhookSignature, webhookTimestamp } from './signing.ts';
import { parseTarget } from './target.ts';
import {
  type BotCallOutcome,
  type BotCallRequest,
  type BotClientOptions,
  type BotFault,
  EXCERPT_BYTES,
  MAX_RESPONSE_BYTES,
} from './types.ts';

const USER_AGENT = 'reversi-arena/1';

type ChallengeCall = components['schemas']['ChallengeCall'];
type ChallengeAnswer = components['schemas']['ChallengeAnswer'];

/** Failures to open a connection that may be retried once: nothing of the request was sent. */
const RETRYABLE_CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET']);

/** Bodies past these are not read: a 2xx answer past the limit is a fault; an error page is cut. */
const BODY_CAPS: BodyCaps = { okBytes: MAX_RESPONSE_BYTES, errorBytes: EXCERPT_BYTES };

/** Distinct bot URLs parsed at most once per this many; see `boundedMemo`. */
const PARSED_URLS = 1000;

/**
 * One call's hold on its attempt in flight, for its timer and its caller's signal to stop. The timer
 * gets it as its argument (to the module-level `expire`) where a closure was made for every call.
 */
class CallStop {
  attempt: Exchange | undefined = undefined;
  timedOut = false;
  /** Its neighbours among the calls in flight under the same caller signal (see `SignalCalls`). */
  previous: CallStop | undefined = undefined;
  next: CallStop | undefined = undefined;

  constructor(readonly timeoutMs: number) {}
}

function expire(stop: CallStop): void {
  stop.timedOut = true;
  stop.attempt?.abort(new Error(`the bot did not answer within ${stop.timeoutMs} ms`));
}

/**
 * The calls in flight under one caller's signal (a match's), and the signal's one listener, added
 * the first time the signal is seen and left for the signal's lifetime. Adding and removing a
 * listener on every call made Node's EventTarget build and drop a listener record, an async wrapper,
 * the list's head and its Map entry each time (about 600 bytes a call); a linked list of the calls
 * makes nothing.
 */
class SignalCalls {
  #first: CallStop | undefined = undefined;

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener('abort', this);
  }

  add(stop: CallStop): void {
    stop.next = this.#first;
    if (this.#first) this.#first.previous = stop;
    this.#first = stop;
  }

  delete(stop: CallStop): void {
    if (stop.previous) stop.previous.next = stop.next;
    else this.#first = stop.next;
    if (stop.next) stop.next.previous = stop.previous;
    stop.previous = undefined;
    stop.next = undefined;
  }

  /** The signal aborted: every attempt in flight under it rejects with its reason. */
  handleEvent(): void {
    for (let stop = this.#first; stop; stop = stop.next) stop.attempt?.abort(this.signal.reason);
  }
}

function failed(fault: Omit<BotFault, 'latencyMs'>, latencyMs: number): { ok: false; fault: BotFault } {
  return { ok: false, fault: { ...fault, latencyMs } };
}

/** What a push bot said of a challenge (see `BotClient.askChallenge`). */
export type ChallengeOutcome =
  | { readonly ok: true; readonly answer: ChallengeAnswer; readonly latencyMs: number }
  | { readonly ok: false; readonly fault: BotFault };

const challengeAnswerSchema = z.strictObject({
  accept: z.boolean(),
  reason: z.enum(DECLINE_REASONS).optional(),
});

/** A push bot's answer to a challenge: `{ accept, reason? }`, or the fault of anything else. */
function judgeChallengeAnswer(answer: Answer, latencyMs: number): ChallengeOutcome {
  const fault = faultOfAnswer(answer, latencyMs);
  if (fault !== null) return fault;
  let json: unknown;
  try {
    json = JSON.parse(answer.bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  const parsed = challengeAnswerSchema.safeParse(json);
  if (parsed.success) return { ok: true, answer: parsed.data, latencyMs };
  return failed(
    {
      reason: 'invalid-response',
      cause: 'not-an-action',
      message: 'the answer is not a ChallengeAnswer ({"accept": true|false, "reason"?})',
      status: answer.status,
      body: excerpt(answer.bytes, EXCERPT_BYTES),
    },
    latencyMs,
  );
}

/** The fault of an answer whose status or size no body can mend; `null` for a 2xx body within the limit. */
function faultOfAnswer(
  { status, bytes, overflow }: Answer,
  latencyMs: number,
): { ok: false; fault: BotFault } | null {
  if (status < 200 || status > 299) {
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    return failed(
      {
        reason: 'bot-error',
        cause: redirect ? 'redirect' : 'http-status',
        message: `the bot answered HTTP ${status}${redirect}`,
        status,
        body: excerpt(bytes, EXCERPT_BYTES),
      },
      latencyMs,
    );
  }
  const tooLarge = `the response is larger than ${MAX_RESPONSE_BYTES} bytes`;
  if (overflow === 'declared') {
    return failed({ reason: 'invalid-response', cause: 'too-large', message: tooLarge, status }, latencyMs);
  }
  if (overflow === 'read') {
    return failed(
      {
        reason: 'invalid-response',
        cause: 'too-large',
        message: tooLarge,
        status,
        body: excerpt(bytes, EXCERPT_BYTES),
      },
      latencyMs,
    );
  }
  return null;
}

/** What the bot's answer means: its action, or the fault of a bad status or a bad body. */
function judge(answer: Answer, latencyMs: number): BotCallOutcome {
  const fault = faultOfAnswer(answer, latencyMs);
  if (fault !== null) return fault;
  const { status, bytes } = answer;
  const parsed = parseBotAction(bytes.toString('utf8'));
  if (!parsed.ok) {
    return failed(
      {
        reason: 'invalid-response',
        cause: 'not-an-action',
        message: parsed.message,
        status,
        body: excerpt(bytes, EXCERPT_BYTES),
      },
      latencyMs,
    );
  }
  return { ok: true, action: parsed.action, latencyMs, status };
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
  readonly #resolver: Resolver;
  readonly #now: () => number;
  readonly #clock: Clock;
  readonly #random: RandomBytes;
  readonly #target = boundedMemo(PARSED_URLS, parseTarget);
  /** Weak: a caller's signal, and its listener with it, is dropped with the caller's match. */
  readonly #signals = new WeakMap<AbortSignal, SignalCalls>();
  #closed = false;

  constructor(options: BotClientOptions) {
    this.#now = options.now ?? (() => performance.now());
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? pooledRandomBytes();
    this.#resolver = botResolver(options.dnsServers);
    this.#agent = new Agent({
      connect: botConnector({ allowPrivateAddresses: options.allowPrivateAddresses }, this.#resolver),
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
  callBot(request: BotCallRequest): Promise<BotCallOutcome> {
    // Not async itself: the request (the state, its bytes) is let go once the call is sent, rather
    // than held in a suspended frame through the bot's think time, where every young-generation
    // collection of a busy worker copied it again.
    try {
      if (this.#closed) throw new Error('BotClient is closed');
      request.signal?.throwIfAborted();
      const start = this.#now();
      const parsed = this.#target(request.url);
      if (!parsed.ok) {
        const fault = { reason: 'bot-error', cause: 'invalid-url', message: parsed.message } as const;
        return Promise.resolve(failed(fault, this.#since(start)));
      }
      const { target } = parsed;
      // Bytes once, for both the signature and the socket (undici would encode a string again).
      const dispatch =
        'state' in request
          ? this.#dispatch(
              target,
              request.webhookSecret,
              Buffer.from(JSON.stringify(request.state)),
              request.state.matchId,
              request.state.ply,
            )
          : this.#dispatch(target, request.webhookSecret, request.body, request.matchId, request.ply);
      return this.#send(dispatch, target.href, request.timeoutMs, request.signal, start, judge);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Asks a push bot whether it takes a challenge (the `botChallenge` call of openapi.yaml), signed
   * and bounded as a turn is. Answers its `ChallengeAnswer`, or the fault of its call (an answer
   * that is not one is an `invalid-response`). Never throws for anything the bot does.
   */
  async askChallenge(request: {
    readonly url: string;
    readonly webhookSecret: string | null;
    readonly call: ChallengeCall;
    readonly timeoutMs: number;
  }): Promise<ChallengeOutcome> {
    if (this.#closed) throw new Error('BotClient is closed');
    const start = this.#now();
    const parsed = this.#target(request.url);
    if (!parsed.ok) {
      return failed(
        { reason: 'bot-error', cause: 'invalid-url', message: parsed.message },
        this.#since(start),
      );
    }
    const payload = Buffer.from(JSON.stringify(request.call));
    const dispatch = this.#dispatch(
      parsed.target,
      request.webhookSecret,
      payload,
      request.call.matchId,
      'challenge',
    );
    return this.#send(
      dispatch,
      parsed.target.href,
      request.timeoutMs,
      undefined,
      start,
      judgeChallengeAnswer,
    );
  }

  /** The POST of `payload` to `target`, signed with `webhookSecret` (unsigned without one). */
  #dispatch(
    target: { readonly origin: string; readonly path: string },
    webhookSecret: string | null,
    payload: Buffer,
    matchId: string,
    step: number | 'challenge',
  ): Dispatcher.DispatchOptions {
    let headers: Record<string, string>;
    if (webhookSecret === null) {
      headers = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
    } else {
      const id = webhookId(matchId, step, this.#random);
      const timestamp = webhookTimestamp(this.#clock.now());
      headers = {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': webhookSignature(webhookSecret, id, timestamp, payload),
      };
    }
    return { origin: target.origin, path: target.path, method: 'POST', headers, body: payload };
  }

  /** Sends the call, retrying once a connection refused or reset while connecting; `read` judges the answer. */
  async #send<Outcome>(
    dispatch: Dispatcher.DispatchOptions,
    href: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    start: number,
    read: (answer: Answer, latencyMs: number) => Outcome | { ok: false; fault: BotFault },
  ): Promise<Outcome | { ok: false; fault: BotFault }> {
    // The timer and the caller's signal stop whichever attempt is in flight; no AbortController
    // per call, since an exchange aborts itself (and rejects at once, even before it has a socket).
    const stop = new CallStop(timeoutMs);
    const timer = setTimeout(expire, timeoutMs, stop);
    const calls = signal ? this.#callsUnder(signal) : undefined;
    calls?.add(stop);
    try {
      for (let tries = 1; ; tries++) {
        const attempt = new Exchange(BODY_CAPS);
        stop.attempt = attempt;
        this.#agent.dispatch(dispatch, attempt);
        let answer: Answer;
        try {
          answer = await attempt.answer;
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (stop.timedOut) {
            return failed(
              {
                reason: 'timeout',
                cause: 'timeout',
                message: `the bot did not answer within ${timeoutMs} ms`,
              },
              this.#since(start),
            );
          }
          const code = errorCode(error);
          const retry = tries === 1 && isConnectPhaseError(error) && RETRYABLE_CONNECT_CODES.has(code ?? '');
          if (retry) continue;
          return { ok: false, fault: faultFromError(error, this.#since(start), href) };
        }
        return read(answer, this.#since(start));
      }
    } finally {
      clearTimeout(timer);
      calls?.delete(stop);
    }
  }

  #callsUnder(signal: AbortSignal): SignalCalls {
    let calls = this.#signals.get(signal);
    if (!calls) {
      calls = new SignalCalls(signal);
      this.#signals.set(signal, calls);
    }
    return calls;
  }

  /** Milliseconds since `start`, whole and never negative. */
  #since(start: number): number {
    return Math.max(0, Math.round(this.#now() - start));
  }

  /** Closes the pool: waits for calls in flight, then closes every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A lookup a bot's DNS server never answers would hold the close for its whole timeout.
    this.#resolver.cancel();
    await this.#agent.close();
  }
}
