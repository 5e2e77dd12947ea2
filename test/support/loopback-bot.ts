import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { BotState } from '../../src/contract/index.ts';
import { boardText, DEFAULT_RULES, initialPosition, legalMoves } from '../../src/reversi/index.ts';

/** A request as the loopback bot saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A real HTTP server on a loopback port, counting what reaches it. */
export interface LoopbackBot {
  readonly port: number;
  /** `http://127.0.0.1:<port>/turn` */
  readonly url: string;
  readonly requests: SeenRequest[];
  /** How many TCP connections the server accepted. */
  connections(): number;
  /** Resolves with the next request the server receives (its body read). */
  nextRequest(): Promise<SeenRequest>;
  /** Resolves with the server's side of the next TCP connection it accepts. */
  nextConnection(): Promise<Socket>;
  close(): Promise<void>;
}

export type Handler = (request: SeenRequest, res: ServerResponse, req: IncomingMessage) => void;

/**
 * Starts a bot on port 0 of `host` (127.0.0.1 by default; '::' listens on both families). The handler
 * runs once the request body is read; it may answer, hold or drop the request.
 */
export async function startLoopbackBot(handler: Handler, host = '127.0.0.1'): Promise<LoopbackBot> {
  const requests: SeenRequest[] = [];
  const waiting: ((request: SeenRequest) => void)[] = [];
  let connections = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(seen);
    for (const resolve of waiting.splice(0)) resolve(seen);
    handler(seen, res, req);
  });
  const connectionWaiters: ((socket: Socket) => void)[] = [];
  server.on('connection', (socket) => {
    connections++;
    for (const resolve of connectionWaiters.splice(0)) resolve(socket);
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/turn`,
    requests,
    connections: () => connections,
    nextRequest: () => new Promise((resolve) => waiting.push(resolve)),
    nextConnection: () => new Promise((resolve) => connectionWaiters.push(resolve)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A port where connections are refused. Not one bound and released: with files running side by side,
 * another test's server may take it at once (an HTTP 404 where a refusal was expected). Ports below
 * 1024 are never handed out for port 0, and these are none of the ports fetch refuses to call.
 */
export async function closedPort(): Promise<number> {
  for (const port of [1000, 1001, 1002, 1003, 1004]) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    });
    if (refused) return port;
  }
  throw new Error('no closed port below 1024 on 127.0.0.1');
}

/** Answers `status` with a JSON (or given) body. */
export function answer(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A bot's answer: its first legal move, after `delayMs` when given (a bot that thinks). */
export function playsFirstLegal(delayMs = 0): Handler {
  return (seen, res) => {
    const state = JSON.parse(seen.body) as BotState;
    const reply = () => answer(res, 200, { action: state.legalMoves[0] });
    if (delayMs > 0) setTimeout(reply, delayMs);
    else reply();
  };
}

/** The state a bot gets on the first ply of a default game. */
export function firstTurnState(): BotState {
  const position = initialPosition(DEFAULT_RULES);
  return {
    matchId: 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D',
    game: 'reversi',
    you: position.toMove,
    board: boardText(position),
    legalMoves: legalMoves(position),
    ply: 1,
    history: [],
    rules: { ...DEFAULT_RULES, timeLimitMs: 1000, overageMs: 5000 },
    timeLimitMs: 1000,
    remainingOverageMs: 5000,
    lastLatencyMs: null,
    opponent: { id: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH', name: 'greedy-bot', rating: 1500 },
  };
}
