import type { FaultCause } from '../model/faults.ts';
import type { BotFault } from './types.ts';

/** The code Node or undici put on an error (`ECONNREFUSED`, `UND_ERR_SOCKET`…), if any. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return errorCode((error as { cause?: unknown }).cause);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'EPROTO',
]);

function isTlsCode(code: string): boolean {
  return TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_');
}

/**
 * Turns what went wrong while calling a bot into a fault, by error code. Timeouts of the network
 * layer count as `timeout`; everything else the network does (refused, reset, DNS, TLS, malformed
 * HTTP, a refused address) is `bot-error`. The message is one line naming the cause.
 *
 * @example
 * faultFromError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 3, 'http://bot/');
 * // { reason: 'bot-error', cause: 'connection-refused', message: 'connection refused by http://bot/', latencyMs: 3 }
 */
export function faultFromError(error: unknown, latencyMs: number, url: string): BotFault {
  const code = errorCode(error) ?? '';
  const botError = (cause: FaultCause, message: string): BotFault => ({
    reason: 'bot-error',
    cause,
    message,
    latencyMs,
  });
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return {
        reason: 'timeout',
        cause: 'timeout',
        message: `the bot did not answer in time (${code})`,
        latencyMs,
      };
    case 'EARENA_ADDRESS_REFUSED':
      return botError('address-refused', errorMessage(error));
    case 'EARENA_NO_PUBLIC_ADDRESS':
      return botError('dns', errorMessage(error));
    case 'ECONNREFUSED':
      return botError('connection-refused', `connection refused by ${url}`);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return botError(
        'connection-closed',
        `the bot closed the connection without a complete answer (${code})`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
      return botError('dns', `the bot's host name does not resolve (${code})`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return botError('unreachable', `the bot's host is unreachable (${code})`);
    default:
      if (isTlsCode(code)) return botError('tls', `TLS error: ${errorMessage(error)}`);
      if (code.startsWith('HPE_') || code === 'UND_ERR_HEADERS_OVERFLOW') {
        return botError('invalid-http', `the bot's answer is not valid HTTP (${code})`);
      }
      return botError('other', `calling the bot failed: ${errorMessage(error)}${code ? ` (${code})` : ''}`);
  }
}
