import type { ErrorRequestHandler, Request, Response } from 'express';
import type { components } from '../contract/index.ts';
import {
  type ArenaError,
  AuthenticationError,
  ConflictError,
  HeadersTooLargeError,
  InvalidCursorError,
  InvalidRequestError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitedError,
  RequestTimeoutError,
  RuleViolationError,
  UnavailableError,
  type ValidationIssue,
} from '../model/errors.ts';

type Problem = components['schemas']['Problem'];

const STATUS: ReadonlyArray<[abstract new (...args: never[]) => ArenaError, number, string]> = [
  [InvalidRequestError, 400, 'Invalid request'],
  [InvalidCursorError, 400, 'Invalid request'],
  [AuthenticationError, 401, 'Unauthorized'],
  [PermissionError, 403, 'Forbidden'],
  [NotFoundError, 404, 'Not found'],
  [MethodNotAllowedError, 405, 'Method not allowed'],
  [RequestTimeoutError, 408, 'Request timeout'],
  [ConflictError, 409, 'Conflict'],
  [PayloadTooLargeError, 413, 'Payload too large'],
  [HeadersTooLargeError, 431, 'Request header fields too large'],
  [RuleViolationError, 422, 'Illegal action'],
  [RateLimitedError, 429, 'Too many requests'],
  [UnavailableError, 503, 'Service unavailable'],
];

/**
 * Errors the libraries in front of our handlers raise for requests they cannot read (body-parser,
 * the router's percent-decoding of path parameters), mapped to ours: a bad request is never a 500.
 */
function fromLibrary(error: { type?: string; message?: string; status?: unknown }): ArenaError | null {
  if (error instanceof URIError) {
    return new InvalidRequestError('request/invalid-path', 'The path is not valid percent-encoded UTF-8.');
  }
  switch (error.type) {
    case 'entity.parse.failed':
      return new InvalidRequestError('request/malformed-json', 'The body is not valid JSON.');
    case 'entity.too.large':
      return new PayloadTooLargeError('request/too-large', 'The body is larger than the server accepts.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new InvalidRequestError(
        'request/unsupported-encoding',
        error.message ?? 'Unsupported encoding.',
      );
    default:
      // A body that does not decode (a broken gzip, deflate or br stream) has no type of its own.
      if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
        return new InvalidRequestError('request/unreadable-body', 'The body could not be read or decoded.');
      }
      return null;
  }
}

/** The fields a 400 names: a parse's issues, or the cursor, which every route takes in its query. */
function issuesOf(error: ArenaError): readonly ValidationIssue[] {
  if (error instanceof InvalidRequestError) return error.issues;
  if (error instanceof InvalidCursorError) return [{ path: 'query.cursor', message: 'unknown cursor' }];
  return [];
}

/** An error as an HTTP answer: its status, its problem document and the headers it needs. */
export interface ProblemAnswer {
  readonly status: number;
  readonly body: Problem;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The one mapping from the arena's errors to problem documents, for express (`sendProblem`) and for
 * what the HTTP parser refuses before there is a request (src/http/client-errors.ts). `instance` is
 * the path, when there is one.
 */
export function problemAnswer(error: ArenaError, instance?: string): ProblemAnswer {
  const [, status, title] = STATUS.find(([type]) => error instanceof type) ?? [
    undefined,
    500,
    'Internal error',
  ];
  const body: Problem = {
    type: `urn:reversi-arena:problem:${error.code}`,
    title,
    status,
    detail: error.message,
    ...(instance === undefined ? {} : { instance }),
    code: error.code,
  };
  const issues = issuesOf(error);
  if (issues.length > 0) body.errors = [...issues];
  if (error instanceof RuleViolationError) body.legalMoves = [...error.legalMoves];
  const headers: Record<string, string> = {};
  if (error instanceof MethodNotAllowedError) headers.Allow = error.allow.join(', ');
  if (error instanceof RateLimitedError) headers['Retry-After'] = String(error.retryAfterSeconds);
  if (status === 503) headers['Retry-After'] = '1';
  return { status, body, headers };
}

export function sendProblem(req: Request, res: Response, error: ArenaError): void {
  const { status, body, headers } = problemAnswer(error, req.originalUrl.split('?')[0]);
  res.set(headers).status(status).type('application/problem+json').json(body);
}

export interface ErrorHandlerOptions {
  /**
   * Whether the store answered, for an unknown `error`: one met while it does not, or one that is
   * the store's outage itself, is reported as 503.
   */
  readonly storeAvailable: (error: unknown) => boolean;
  readonly onUnexpected: (error: unknown, req: Request) => void;
}

/**
 * The one place errors become HTTP answers (RFC 9457 problem documents). Known errors keep their
 * code and message; anything else is logged and hidden behind a plain 500.
 */
export function errorHandler(options: ErrorHandlerOptions): ErrorRequestHandler {
  // Four parameters, though `next` is unused: express tells an error handler by its arity.
  return (error, req, res, _next) => {
    if (res.headersSent) {
      // An answer under way (an event stream) is cut, and only the log can say why. An outage is
      // not logged per request: the store's watcher reports it once. Cut here, as express's final
      // handler would, but without its console.error: outside NODE_ENV=test it logs the error too.
      if (options.storeAvailable(error)) options.onUnexpected(error, req);
      req.socket.destroy();
      return;
    }
    const known =
      error instanceof Error && 'code' in error && STATUS.some(([type]) => error instanceof type)
        ? (error as ArenaError)
        : fromLibrary(error);
    if (known) return sendProblem(req, res, known);
    if (!options.storeAvailable(error)) {
      return sendProblem(
        req,
        res,
        new UnavailableError('service/unavailable', 'The store does not answer; try again shortly.'),
      );
    }
    options.onUnexpected(error, req);
    res
      .status(500)
      .type('application/problem+json')
      .json({
        type: 'urn:reversi-arena:problem:internal',
        title: 'Internal error',
        status: 500,
        detail: 'Something went wrong on our side.',
        instance: req.originalUrl.split('?')[0],
        code: 'internal',
      } satisfies Problem);
  };
}
