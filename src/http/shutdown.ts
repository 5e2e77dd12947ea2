import type { Server, ServerResponse } from 'node:http';
import type { Application } from 'express';

const CLOSING = Symbol('arena closing');

/**
 * The arena's shutdown as the responses that would otherwise stay open (event streams and long
 * polls) hear of it: each hands over its own controller, aborted when the shutdown begins (see
 * `drainOnClose`), so it ends at once and tells the client why.
 *
 * A set of controllers rather than listeners on one AbortSignal: an EventTarget finds a listener
 * to add or remove by scanning all of them, and thousands of waits open and end each second.
 *
 * It lives on `app.locals` rather than in createApp's dependencies: the server that closes the app
 * is made after it, and an app driven alone (supertest) simply never closes.
 *
 * @example
 * const closing = closingOf(req.app);
 * if (closing.started) res.write('event: arenaClosing\ndata: {}\n\n');
 */
export class Closing {
  #started = false;
  readonly #stops = new Set<AbortController>();

  /** True once the shutdown began. */
  get started(): boolean {
    return this.#started;
  }

  /** Aborts `stop` when the shutdown begins, at once if it has, until `forget(stop)`. */
  watch(stop: AbortController): void {
    if (this.#started) stop.abort();
    else this.#stops.add(stop);
  }

  forget(stop: AbortController): void {
    this.#stops.delete(stop);
  }

  /** Begins the shutdown: every watched controller aborts. */
  start(): void {
    this.#started = true;
    for (const stop of this.#stops) stop.abort();
    this.#stops.clear();
  }
}

export function closingOf(app: Application): Closing {
  const locals = app.locals as unknown as Record<symbol, Closing | undefined>;
  locals[CLOSING] ??= new Closing();
  return locals[CLOSING];
}

export interface DrainingServer {
  /**
   * Closes the server with clients still connected, resolving once it is closed:
   * 1. stops accepting connections and closes the idle keep-alive ones (`server.close()`);
   * 2. starts `closingOf(app)`, so event streams say `arenaClosing` and end, and long polls
   *    answer with the state as it is;
   * 3. answers each request still running, or still arriving on an open connection, with
   *    `Connection: close`, and closes each connection as soon as its response is done: an idle
   *    keep-alive connection would otherwise hold the close for `keepAliveTimeout`;
   * 4. after `deadlineMs`, cuts whatever is left (say, a client sending a body very slowly).
   */
  close(deadlineMs: number): Promise<void>;
}

/**
 * Watches the requests `server` serves for `app`, so that `close` can drain them. Call it as soon
 * as the server is made: a request that started before it is not told to close its connection.
 *
 * @example
 * const server = app.listen(port);
 * const draining = drainOnClose(server, app);
 * process.once('SIGTERM', () => void draining.close(10_000).then(() => process.exit(0)));
 */
export function drainOnClose(server: Server, app: Application): DrainingServer {
  const running = new Set<ServerResponse>();
  let closing = false;
  const sayClose = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  // Prepended, so it runs before express answers a request synchronously.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (closing) sayClose(res);
    running.add(res);
    res.once('close', () => {
      running.delete(res);
      // An event stream sent its headers (keep-alive) long ago: close its connection now it is done.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return {
    async close(deadlineMs) {
      closing = true;
      const closed = new Promise<void>((done) => server.close(() => done()));
      for (const res of running) sayClose(res);
      closingOf(app).start();
      const cut = setTimeout(() => server.closeAllConnections(), deadlineMs);
      try {
        await closed;
      } finally {
        clearTimeout(cut);
      }
    },
  };
}
