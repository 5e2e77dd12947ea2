/**
 * Bot faults as the public may see them. A fault's full message can name what only the bot's owner
 * may know: its URL (with a secret in the query, say), its host and port, the address the host
 * name resolved to. Anyone else sees the fault's kind, who faulted, the HTTP status and latency, and
 * a generic sentence chosen by its cause. Pure: no I/O.
 */

/** Why a bot's turn failed, finer than the match's result reason; stable, machine-readable. */
export type FaultCause =
  | 'timeout'
  | 'connection-refused'
  | 'connection-closed'
  | 'dns'
  | 'unreachable'
  | 'address-refused'
  | 'tls'
  | 'invalid-http'
  | 'http-status'
  | 'redirect'
  | 'too-large'
  | 'not-an-action'
  | 'invalid-url'
  | 'illegal-move'
  | 'other';

/** Why a match ended by a side's fault: the result reasons that are faults. */
export const FAULT_REASONS = ['timeout', 'bot-error', 'invalid-response', 'illegal-move'] as const;
export type FaultReason = (typeof FAULT_REASONS)[number];
/** The faults a player reports about its own answer; `illegal-move` is found by the rules. */
export type PlayerFaultReason = Exclude<FaultReason, 'illegal-move'>;

const GENERIC_TEXT: Record<FaultCause, string> = {
  timeout: 'the bot did not answer in time',
  'connection-refused': "the bot's server refused the connection",
  'connection-closed': "the bot's server closed the connection without a complete answer",
  dns: "the bot's host name does not resolve",
  unreachable: "the bot's host is unreachable",
  'address-refused': "the bot's address is not public, so the arena may not call it",
  tls: "the TLS connection to the bot's server failed",
  'invalid-http': "the bot's answer is not valid HTTP",
  'http-status': 'the bot answered with an HTTP error status',
  redirect: 'the bot answered with a redirect, which the arena does not follow',
  'too-large': "the bot's answer is too large",
  'not-an-action': "the bot's answer is not a valid action",
  'invalid-url': "the bot's URL cannot be called",
  'illegal-move': 'the bot played an illegal move',
  other: 'calling the bot failed',
};

/** When a stored fault has no cause (recorded before causes existed), its reason picks the text. */
const CAUSE_OF_REASON: Record<FaultReason, FaultCause> = {
  timeout: 'timeout',
  'bot-error': 'other',
  'invalid-response': 'not-an-action',
  'illegal-move': 'illegal-move',
};

/**
 * The most characters of a fault's message the arena keeps or tells. Parts of it come from the bot
 * (the keys of its answer, say): uncut, one answer with 7,000 unknown keys stored 72 kB with its match.
 */
export const FAULT_MESSAGE_MAX = 500;

/** A fault's message cut to `FAULT_MESSAGE_MAX` characters, marked with an ellipsis where cut. */
export function clippedFaultMessage(message: string): string {
  return message.length <= FAULT_MESSAGE_MAX ? message : `${message.slice(0, FAULT_MESSAGE_MAX - 1)}…`;
}

/** A fault as stored with a match's result. */
export interface FaultDetails {
  readonly player: 'black' | 'white';
  readonly reason?: FaultReason;
  readonly cause?: FaultCause;
  readonly message: string;
  readonly status?: number;
  readonly latencyMs?: number;
  readonly body?: string;
}

/**
 * The fault as anyone may see it: kind, player, status and latency, and a generic message. An
 * illegal move keeps its message, which names only the move and the rules (public game facts).
 *
 * @example
 * publicFault({ player: 'black', reason: 'bot-error', cause: 'connection-refused',
 *   message: 'connection refused by http://10.0.0.7:4001/?key=secret', latencyMs: 3 });
 * // { player: 'black', reason: 'bot-error', cause: 'connection-refused',
 * //   message: "the bot's server refused the connection", latencyMs: 3 }
 */
export function publicFault(fault: FaultDetails): FaultDetails {
  const cause = fault.cause ?? (fault.reason ? CAUSE_OF_REASON[fault.reason] : 'other');
  const message = cause === 'illegal-move' ? fault.message : GENERIC_TEXT[cause];
  const { body: _body, ...rest } = fault;
  return { ...rest, message };
}

/** The public one-line text of a fault: its reason and generic message. */
export function publicFaultText(fault: FaultDetails, reason: string): string {
  return `${reason}: ${publicFault(fault).message}`;
}

/** A match result with its fault, if any, as the public sees it. */
export function publicResult<R extends { readonly fault?: FaultDetails }>(result: R): R {
  return result.fault === undefined ? result : { ...result, fault: publicFault(result.fault) };
}

/**
 * The result as one viewer sees it: the full fault for the bot that faulted (and for the admin,
 * `privileged`), the public one for everyone else.
 */
export function resultAsSeenBy<R extends { readonly fault?: FaultDetails }>(
  result: R,
  viewer: { readonly color: 'black' | 'white' | null; readonly privileged?: boolean },
): R {
  if (result.fault === undefined) return result;
  if (viewer.privileged || viewer.color === result.fault.player) return result;
  return publicResult(result);
}
