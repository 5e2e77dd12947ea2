import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { RateLimitedError } from '../model/errors.ts';
import { BoundedMap } from '../support/bounded-map.ts';
import type { Clock } from '../support/clock.ts';
import { problemAnswer } from './problem.ts';

/** Clients remembered at once; past it the oldest refusal is forgotten (its client meets the limiter again). */
const REMEMBERED = 100_000;

/**
 * How long a connection is left unread after a refusal. A client that sends its next request as
 * soon as it has the answer (a flood on keep-alive connections) is answered once a second per
 * connection, at most `MAX_CONNECTIONS_PER_ADDRESS` a second per address, rather than as fast as the
 * server can refuse, which on two cores slowed every other client about three times over
 * (docs/fair-play.md, `npm run bench:flood`).
 */
export const REFUSED_HOLD_MS = 1000;

/**
 * Who a request is as the general rate limit counts it, before its token is looked up: the bearer
 * header as sent (every request with one header has one principal, or is refused), else the
 * session cookie, else the client's address group.
 */
export type DoorKey = (req: Request) => string;

/**
 * Clients the general rate limit refused, remembered in this process until their window ends, so
 * that their next requests are refused at the door: before the request log, the token lookup, the
 * limiter's round trip to Redis and the body. The limiter decides every refusal (at Redis); this
 * only repeats its answer for the rest of the window.
 */
export class RefusedClients {
  readonly #until = new BoundedMap<string, number>(REMEMBERED);

  constructor(private readonly clock: Clock) {}

  /** Refuses `key` until `until` (epoch ms); true when it was not refused already. */
  remember(key: string, until: number): boolean {
    const known = this.#until.get(key);
    this.#until.delete(key);
    this.#until.set(key, until);
    return known === undefined || known <= this.clock.now();
  }

  /** Milliseconds until `key` may ask again; 0 when it is not refused. */
  refusedFor(key: string): number {
    const until = this.#until.get(key);
    if (until === undefined) return 0;
    const left = until - this.clock.now();
    if (left <= 0) this.#until.delete(key);
    return Math.max(0, left);
  }
}

/**
 * Leaves the connection of a refused request unread for `REFUSED_HOLD_MS` once the answer is sent:
 * its client's next request waits on the socket, not on the server's event loop.
 */
export function holdConnection(res: Response): void {
  // Taken now: the server detaches the socket from the response when the answer is sent.
  const socket = res.socket;
  res.once('finish', () => {
    if (socket === null || socket.destroyed) return;
    // The server resumes the socket itself once the answer is sent, to read past a body left
    // unread (a POST refused before its body was parsed): each resume during the hold is undone.
    const pause = () => socket.pause();
    socket.on('resume', pause);
    socket.pause();
    const timer = setTimeout(() => {
      socket.off('resume', pause);
      socket.resume();
    }, REFUSED_HOLD_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

/**
 * The first handler of the app: a request to the API from a client the limiter refused in this
 * window is answered 429 at once, as the limiter would answer it (problem document, `Retry-After`), with
 * no log line (the limiter logged the first refusal), and its connection is held.
 */
/** What the limiter would have said: the refusal's sentence and its RateLimit headers. */
export type DoorRefusal = (
  req: Request,
  retryAfterSeconds: number,
) => { readonly detail: string; readonly headers: Readonly<Record<string, string>> };

export function refuseAtTheDoor(
  refused: RefusedClients,
  keyOf: DoorKey,
  registry: Registry,
  refusal: DoorRefusal,
): RequestHandler {
  const counted = new Counter({
    name: 'http_requests_refused_at_door_total',
    help: 'Requests of clients over their rate limit, answered 429 before any other work',
    registers: [registry],
  });
  return (req, res, next) => {
    // The API only: pages and probes are not limited, and a refused client may still read them.
    if (!req.path.startsWith('/v1/')) return next();
    const waitMs = refused.refusedFor(keyOf(req));
    if (waitMs === 0) return next();
    counted.inc();
    const retryAfter = Math.ceil(waitMs / 1000);
    const said = refusal(req, retryAfter);
    const { status, body, headers } = problemAnswer(new RateLimitedError(said.detail, retryAfter), req.path);
    const json = JSON.stringify(body);
    holdConnection(res);
    res.writeHead(status, {
      ...said.headers,
      ...headers,
      'Content-Type': 'application/problem+json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(json);
  };
}

/** Logs a client's first refusal in a window, naming only its address and what it was verified to be. */
export function logRefusal(logger: Logger, req: Request, principal: string): void {
  logger.info(
    { address: req.ip, principal },
    'client over its rate limit: refused at the door until its window ends',
  );
}
