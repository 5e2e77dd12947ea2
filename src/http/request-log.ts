import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { principalLabel, principalOf } from './auth.ts';
import type { RequestObserver } from './metrics.ts';

/**
 * The route template (`/v1/bots/:botId`) when a route matched, so that lines group by endpoint and
 * ids stay out of the message; otherwise the path, cut short (it is the client's to choose).
 */
function routeOf(req: Request): string {
  const template = req.route?.path;
  if (typeof template === 'string') return `${req.baseUrl}${template}`;
  return req.path.length > 80 ? `${req.path.slice(0, 80)}…` : req.path;
}

/**
 * One short log line per request, when its answer is sent or the client goes away: method, route,
 * status, milliseconds and principal, as fields and as the message
 * (`GET /v1/bots/:botId 200 3ms anonymous`). No headers, no bodies. 5xx answers log at `error`,
 * 429s at `debug`.
 * Each answer sent in full is also handed to `observe` (the latency metric).
 */
export function requestLog(logger: Logger, observe: RequestObserver): RequestHandler {
  // One listener for every response (`this` is the response), its state on the response: no
  // closure made per request, which the hot reads paid for in allocations and GC.
  function logOnce(this: Response): void {
    const started = this[STARTED];
    if (started === undefined) return;
    this[STARTED] = undefined;
    const req = this.req;
    const elapsedMs = performance.now() - started;
    // Answers sent in full are measured; a client that left is only logged.
    if (this.writableFinished) observe(req, this, elapsedMs / 1000);
    // A client that left before the answer was complete: nginx's 499.
    const status = this.writableFinished ? this.statusCode : 499;
    // A refusal of a client over its limit is logged once, when it begins (see refusals.ts): a
    // flood must not become a flood of log lines.
    const level = status >= 500 ? 'error' : status === 429 ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      method: req.method,
      route: routeOf(req),
      status,
      ms: Math.round(elapsedMs),
      principal: principalLabel(principalOf(this)),
    };
    logger[level](line, `${line.method} ${line.route} ${line.status} ${line.ms}ms ${line.principal}`);
  }
  return (_req, res, next) => {
    res[STARTED] = performance.now();
    // `close` alone: node emits it after `finish` too (a tick later), and a second listener per
    // request was a cost of every read. `on`, not `once`: each `once` wrapper is held per open stream.
    res.on('close', logOnce);
    next();
  };
}

/** When a response's request came in (performance.now()), until its line is logged. */
const STARTED = Symbol('request-log.started');

declare module 'express-serve-static-core' {
  interface Response {
    [STARTED]?: number | undefined;
  }
}
