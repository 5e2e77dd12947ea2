import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { answerClientErrors } from './client-errors.ts';

/** How often Node looks for requests past their header or request timeout (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * The API's HTTP server, bounded in time and in connections per client address:
 * - a client must send its headers within `headersTimeoutMs` (slowloris) and its whole request
 *   within `requestTimeoutMs` (a slow body); an event stream or a long poll is a long *answer*, which
 *   these do not cut;
 * - an idle keep-alive connection is closed after `keepAliveTimeoutMs`;
 * - past `maxConnectionsPerAddress` open connections from one address, the newest is closed. Behind
 *   a reverse proxy every connection comes from the proxy: raise the cap there and let the proxy
 *   limit clients;
 * - what the HTTP parser refuses is answered with a problem document (see `answerClientErrors`).
 */
export function createHttpServer(
  app: RequestListener,
  options: Omit<Config['http'], 'listenBacklog'>,
  logger: Logger,
): Server {
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    app,
  );
  server.keepAliveTimeout = options.keepAliveTimeoutMs;
  answerClientErrors(server);
  limitConnectionsPerAddress(server, options.maxConnectionsPerAddress, logger);
  return server;
}

function limitConnectionsPerAddress(server: Server, cap: number, logger: Logger): void {
  const open = new Map<string, number>();
  const refusedRecently = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = (open.get(address) ?? 0) + 1;
    if (count > cap) {
      socket.destroy();
      // One line per address and minute, not one per refused connection.
      if (!refusedRecently.has(address)) {
        refusedRecently.add(address);
        setTimeout(() => refusedRecently.delete(address), 60_000).unref();
        logger.warn({ address, cap }, 'too many connections from one address; closing the newest');
      }
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/**
 * The soft limit on open files of this process (each connection holds one), from /proc on Linux;
 * null where it cannot be read.
 */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((candidate) => candidate.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? null : Number(soft);
  } catch {
    return null;
  }
}
