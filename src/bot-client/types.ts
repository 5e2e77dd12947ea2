import type { BotAction, BotState } from '../contract/index.ts';
import type { FaultCause } from '../model/faults.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';

/** One turn's call to a push bot. */
export type BotCallRequest = BotCallTarget &
  (
    | { readonly state: BotState }
    /**
     * A state's JSON as UTF-8 bytes, sent as they are (so they must be a `BotState`'s), with its
     * match and ply for the call's headers: the runner writes them without building the state.
     */
    | { readonly body: Buffer; readonly matchId: string; readonly ply: number }
  );

interface BotCallTarget {
  /** The bot's registered URL; anything but http and https is refused. */
  readonly url: string;
  /** The bot's Standard Webhooks secret (`whsec_…`); `null` sends the call unsigned. */
  readonly webhookSecret: string | null;
  /** The whole time the bot has: connect, request, and the response body, as the arena measures it. */
  readonly timeoutMs: number;
  /**
   * The caller's own cancellation (a worker shutting down). Not a bot fault: when it fires the call
   * rejects with the signal's reason instead of returning an outcome.
   */
  readonly signal?: AbortSignal;
}

/**
 * Why a bot's turn failed. `timeout`: no complete answer within the limit. `bot-error`: the bot could
 * not be reached or answered a non-2xx status. `invalid-response`: a 2xx answer that is not a
 * `BotAction` (not JSON, wrong shape, too large).
 */
export type BotFaultReason = 'timeout' | 'bot-error' | 'invalid-response';

export interface BotFault {
  readonly reason: BotFaultReason;
  /** The finer cause, which picks the generic text the public sees (see src/model/faults.ts). */
  readonly cause: FaultCause;
  /** One line for humans (match records, logs); never a stack trace. May name the bot's URL or address. */
  readonly message: string;
  /** The HTTP status when the bot answered one. */
  readonly status?: number;
  readonly latencyMs: number;
  /** The first bytes of the bot's body (at most `EXCERPT_BYTES`), when it sent one. */
  readonly body?: string;
}

/** The result of one call: the bot's action, or the fault that forfeits its turn. */
export type BotCallOutcome =
  | { readonly ok: true; readonly action: BotAction; readonly latencyMs: number; readonly status?: number }
  | { readonly ok: false; readonly fault: BotFault };

export interface BotClientOptions {
  /**
   * Let bots live on loopback, private and link-local addresses (config `ARENA_ALLOW_PRIVATE_BOT_URLS`).
   * For local development and tests only: in production a bot URL could otherwise reach the arena's
   * own Redis or a cloud metadata service.
   */
  readonly allowPrivateAddresses: boolean;
  /** The DNS servers bots' host names are asked of (config `BOT_DNS_SERVERS`); the system's by default. */
  readonly dnsServers?: readonly string[];
  /** Monotonic milliseconds for latency; `performance.now` by default. */
  readonly now?: () => number;
  /** Wall-clock time for the `webhook-timestamp` header; `systemClock` by default. */
  readonly clock?: Clock;
  /** Randomness for `webhook-id`; `crypto.randomBytes` by default. */
  readonly random?: RandomBytes;
  /** Idle keep-alive connections are closed after this long (default 4000 ms). */
  readonly keepAliveTimeoutMs?: number;
}

/** A response body past this many bytes is a fault; the rest is never read. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** How much of a bad body a fault keeps. */
export const EXCERPT_BYTES = 200;
