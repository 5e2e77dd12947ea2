import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import {
  type ArenaError,
  HeadersTooLargeError,
  InvalidRequestError,
  RequestTimeoutError,
} from '../model/errors.ts';
import { problemAnswer } from './problem.ts';

/** llhttp's reasons are fixed phrases; anything else stays out of the answer. */
const PARSER_REASON = /^[\w\s,.'-]{1,120}$/;

/** What the parser's (or the server's timers') error means, as one of the arena's errors. */
function asArenaError(error: NodeJS.ErrnoException & { reason?: unknown }): ArenaError {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new HeadersTooLargeError(
      'request/headers-too-large',
      'The request headers are larger than the server reads.',
    );
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new RequestTimeoutError('request/timeout', 'The request did not arrive in time.');
  }
  const reason =
    typeof error.reason === 'string' && PARSER_REASON.test(error.reason) ? `: ${error.reason}` : '';
  return new InvalidRequestError('request/malformed-http', `The request is not valid HTTP/1.1${reason}.`);
}

/**
 * Answers what Node's HTTP parser refuses (a bad request line, `Content-Length` beside
 * `Transfer-Encoding`, a negative length, headers too large) and requests cut by the server's
 * timeouts with a problem document, as every other error, and `Connection: close`: Node's own
 * answer is a bare status line. There is no request object yet, so the answer is written to the
 * socket as Node's default handler writes its own: only when the socket can take it and no
 * answer has begun on it; otherwise the socket is destroyed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, body, headers } = problemAnswer(asArenaError(error));
    const json = JSON.stringify(body);
    const lines = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'Content-Type: application/problem+json',
      `Content-Length: ${Buffer.byteLength(json)}`,
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${json}`);
  });
}
