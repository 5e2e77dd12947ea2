import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the arena does with one connection to a bot's event stream: write to it, end it, or leave it open. */
export type Script = (res: ServerResponse, req: IncomingMessage) => void;

export interface Seen {
  readonly headers: IncomingHttpHeaders;
  /** When the connection came, on the server's clock, so that delays are the ones the arena saw. */
  readonly at: number;
}

export interface ScriptedArenaOptions {
  /**
   * Answers a request before it is taken for a stream connection (a posted action, `/v1/bots/me`):
   * true when it did, so that it runs no script and is not counted among the connections.
   */
  handle?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
  /** What each connection beyond the scripts gets; by default a stream that stays open and says nothing. */
  open?: Script;
}

export interface ScriptedArena {
  readonly url: string;
  /** The stream connections so far, in the order they came. */
  readonly seen: readonly Seen[];
  /** Resolves once stream connection `n` (from 0) has come. */
  connection(n: number): Promise<Seen>;
  /** Cuts the streams still open, which would otherwise keep the server from closing, and closes it. */
  close(): void;
}

/**
 * A bot's event stream, by hand: stream connection n runs `scripts[n]`, those after them get
 * `options.open`. Each connection's headers and arrival time are kept.
 *
 * @example
 * const arena = await scriptedArena([
 *   (res) => {
 *     sseEvents(res, 'retry: 150', 'id: 1-0\nevent: matchStarted\ndata: {"matchId":"match_1"}');
 *     res.end();
 *   },
 * ]);
 * const second = await arena.connection(1);
 * expect(second.headers['last-event-id']).toBe('1-0');
 * arena.close();
 */
export async function scriptedArena(
  scripts: readonly Script[],
  options: ScriptedArenaOptions = {},
): Promise<ScriptedArena> {
  const { handle, open = (res) => sseEvents(res) } = options;
  const seen: Seen[] = [];
  const waiting = new Map<number, () => void>();
  const streams: ServerResponse[] = [];
  const server = createServer(async (req, res) => {
    if (handle && (await handle(req, res))) return;
    const n = seen.length;
    seen.push({ headers: req.headers, at: performance.now() });
    streams.push(res);
    (scripts[n] ?? open)(res, req);
    waiting.get(n)?.();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    connection: (n) =>
      new Promise<Seen>((resolve) => {
        if (seen[n]) resolve(seen[n]);
        else waiting.set(n, () => resolve(seen[n]!));
      }),
    close: () => {
      for (const res of streams) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * Answers `/v1/bots/me`, which a starter bot asks before it opens its stream; true when `req` was
 * that, as `ScriptedArenaOptions.handle` wants.
 */
export function answerBotsMe(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.url !== '/v1/bots/me') return false;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'bot_x', name: 'hand-made' }));
  return true;
}

/**
 * A `ScriptedArenaOptions.handle` for posted actions: each body is kept in `posted`, parsed, and
 * `act` answers it (its Content-Type already JSON).
 */
export function postedActions(act: (body: Record<string, unknown>, res: ServerResponse) => void): {
  readonly posted: Record<string, unknown>[];
  readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
} {
  const posted: Record<string, unknown>[] = [];
  return {
    posted,
    handle: async (req, res) => {
      if (req.method !== 'POST') return false;
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      posted.push(body);
      res.setHeader('content-type', 'application/json');
      act(body, res);
      return true;
    },
  };
}

/**
 * Starts an event stream and writes `blocks` to it, each an event, a comment or a `retry:`. Node
 * holds the head back until the first write, so with no blocks the client is still waiting for it.
 */
export function sseEvents(res: ServerResponse, ...blocks: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const block of blocks) res.write(`${block}\n\n`);
}
