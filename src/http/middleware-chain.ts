import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run one after another as a single middleware, as express's own chain runs them: a
 * handler's `next()` goes on, `next(error)` (or a throw, or a rejected promise) skips the rest
 * with the error, `next('router')` skips the rest without one. Express pays, per middleware and
 * request, a layer's path match, a params pass and a closure of its own; a cached read passed
 * about fifteen of them, a tenth of its cost (docs/scale.md). Error handlers stay express's.
 */
export function inOrder(handlers: readonly RequestHandler[]): RequestHandler {
  if (handlers.some((handler) => handler.length > 3)) {
    throw new Error('inOrder runs request handlers; error handlers go to app.use');
  }
  return (req, res, done) => runFrom(handlers, 0, req, res, done);
}

function runFrom(
  handlers: readonly RequestHandler[],
  index: number,
  req: Request,
  res: Response,
  done: NextFunction,
): void {
  const handler = handlers[index];
  if (handler === undefined) {
    done();
    return;
  }
  let result: unknown;
  try {
    // An inline arrow: esbuild's keepNames (tsx) names a closure held in a variable at every call.
    result = handler(req, res, (outcome?: unknown) => {
      if (outcome === undefined || outcome === null || outcome === 'route') {
        runFrom(handlers, index + 1, req, res, done);
      } else done(outcome === 'router' ? undefined : outcome);
    });
  } catch (error) {
    done(error);
    return;
  }
  if (isThenable(result)) {
    result.then(undefined, (error: unknown) => done(error ?? new Error('Rejected promise')));
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * `handler` for requests whose path starts with one of `prefixes` (or matches the pattern); the
 * others pass by at the cost of a prefix test.
 */
export function forPaths(prefixes: readonly string[] | RegExp, handler: RequestHandler): RequestHandler {
  const taken =
    prefixes instanceof RegExp
      ? (path: string) => prefixes.test(path)
      : (path: string) => prefixes.some((prefix) => path.startsWith(prefix));
  return (req, res, next) => (taken(req.path) ? handler(req, res, next) : next());
}

/**
 * `handlers` for `method` requests to `path` exactly, as an express route matches it (in any case,
 * with a final `/` or not): `app.post(path, ...handlers)` inside an `inOrder` chain.
 */
export function forRoute(
  method: 'POST',
  path: string,
  handlers: RequestHandler | readonly RequestHandler[],
): RequestHandler {
  const pattern = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?$`, 'i');
  const chain = inOrder(Array.isArray(handlers) ? handlers : [handlers as RequestHandler]);
  return (req, res, next) =>
    req.method === method && pattern.test(req.path) ? chain(req, res, next) : next();
}
