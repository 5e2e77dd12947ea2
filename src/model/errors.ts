/**
 * The arena's errors: a few classes, each with a stable namespaced `code` (e.g. `bots/not-found`).
 * Services throw these; exactly one HTTP middleware (src/http/problem.ts) maps them to problem
 * documents. Nothing here knows about HTTP status codes.
 */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

interface ErrorOptions {
  readonly cause?: unknown;
}

export abstract class ArenaError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options: ErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** The request is malformed: bad JSON, unknown fields, wrong types, out-of-range values. */
export class InvalidRequestError extends ArenaError {
  constructor(
    code: string,
    message: string,
    readonly issues: readonly ValidationIssue[] = [],
    options?: ErrorOptions,
  ) {
    super(code, message, options);
  }
}

/**
 * A page cursor that the store did not issue (or can no longer read). The store does not know where
 * the cursor came from; the HTTP layer names the field it arrived in.
 */
export class InvalidCursorError extends ArenaError {
  constructor(options?: ErrorOptions) {
    super('request/invalid-cursor', 'The cursor is not one this server issued.', options);
  }
}

/** The request is well-formed but the game refuses it (an illegal move). */
export class RuleViolationError extends ArenaError {
  constructor(
    code: string,
    message: string,
    readonly legalMoves: readonly string[],
    options?: ErrorOptions,
  ) {
    super(code, message, options);
  }
}

export class NotFoundError extends ArenaError {}

/** The request conflicts with the current state (a taken name, a finished match, not your turn). */
export class ConflictError extends ArenaError {}

/** No credentials, or credentials that match nothing. */
export class AuthenticationError extends ArenaError {}

/** Valid credentials that do not allow this action. */
export class PermissionError extends ArenaError {}

/** Too many requests, or too many of something a caller may hold at once (matches, streams). */
export class RateLimitedError extends ArenaError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    code = 'rate-limited',
  ) {
    super(code, message);
  }
}

/** A dependency (Redis, the queue) does not answer, or the service is shutting down. */
export class UnavailableError extends ArenaError {}

/** The body is larger than the server accepts. */
export class PayloadTooLargeError extends ArenaError {}

/** The request's headers are larger than the server reads. */
export class HeadersTooLargeError extends ArenaError {}

/** The client did not send its request in time. */
export class RequestTimeoutError extends ArenaError {}

/** The path exists, but not with this method; `allow` lists the methods it has. */
export class MethodNotAllowedError extends ArenaError {
  constructor(
    code: string,
    message: string,
    readonly allow: readonly string[],
  ) {
    super(code, message);
  }
}
