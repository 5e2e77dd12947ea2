import { setMaxListeners } from 'node:events';
import type { Server, ServerResponse } from 'node:http';
import type { Application } from 'express';

const CLOSING = Symbol('arena closing');

/**
 * Aborts when the arena begins to shut down (see `drainOnClose`). Responses that would otherwise
 * stay open, event streams and long polls, listen to it and end at once, telling the client why.
 *
 * It lives on `app.locals` rather than in createApp's dependencies: the server that closes the app
 * is made after it, and an app driven alone (supertest) simply never closes.
 *
 * @example
 * const closing = closingSignal(req.app);
 * if (closing.aborted) res.write('event: arenaClosing\ndata: {}\n\n');
 */
export function closingSignal(app: Application): AbortSignal {
  return closingController(app).signal;
}

function closingController(app: Application): AbortController {
  const locals = app.locals as unknown as Record<symbol, AbortController | undefined>;
  if (locals[CLOSING] === undefined) {
    const controller = new AbortController();
    // Every open stream and long poll listens to it: thousands are no leak.
    setMaxListeners(0, controller.signal);
    locals[CLOSING] = controller;
  }
  return locals[CLOSING];
}

export interface DrainingServer {
  /**
   * Closes the server with clients still connected, resolving once it is closed:
   * 1. stops accepting connections and closes the idle keep-alive ones (`server.close()`);
   * 2. aborts `closingSignal(app)`, so event streams say `arenaClosing` and end, and long polls
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
      closingController(app).abort();
      const cut = setTimeout(() => server.closeAllConnections(), deadlineMs);
      try {
        await closed;
      } finally {
        clearTimeout(cut);
      }
    },
  };
}
