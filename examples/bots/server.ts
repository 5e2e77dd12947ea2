import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPushVerifier, type PushVerifier } from '@reversi-arena/client';
import { chooseAlphaBeta, DEFAULT_DEPTH } from '../../src/house/alphabeta.ts';
import { chooseGreedy } from '../../src/house/greedy.ts';
import { chooseRandom, type Random } from '../../src/house/random.ts';
import { type Action, NoMoveError, type Turn, turnSchema } from '../../src/house/turn.ts';

/** The example bots `startBot` can run. */
export const BOT_KINDS = ['random', 'greedy', 'alphabeta'] as const;
export type BotKind = (typeof BOT_KINDS)[number];

export interface BotOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Defaults to 127.0.0.1. */
  readonly host?: string;
  /** A Standard Webhooks secret (`whsec_…`): calls whose signature does not verify get 401. */
  readonly secret?: string;
  /** Alpha-beta search depth (default `DEFAULT_DEPTH`). */
  readonly depth?: number;
  /** The random bot's randomness (default `Math.random`). */
  readonly random?: Random;
}

export interface RunningBot {
  /** Where to register the bot, e.g. `http://127.0.0.1:7001/`. */
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** The move-choosing function of a kind of bot. */
export function chooser(
  kind: BotKind,
  options: Pick<BotOptions, 'depth' | 'random'> = {},
): (turn: Turn) => Action {
  switch (kind) {
    case 'random': {
      const random = options.random ?? Math.random;
      return (turn) => chooseRandom(turn, random);
    }
    case 'greedy':
      return chooseGreedy;
    case 'alphabeta': {
      const depth = options.depth ?? DEFAULT_DEPTH;
      return (turn) => chooseAlphaBeta(turn, depth);
    }
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Answers one turn: verify, parse, choose. Errors are answered, never thrown. */
async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  choose: (turn: Turn) => Action,
  verify: PushVerifier | null,
) {
  if (req.method !== 'POST') return reply(res, 405, { error: 'POST the BotState here' });
  const body = await readBody(req);
  if (body === null) return reply(res, 413, { error: 'body too large' });
  if (verify !== null && !verify(req.headers, body).ok) {
    return reply(res, 401, { error: 'the webhook signature does not verify' });
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return reply(res, 400, { error: 'the body is not JSON' });
  }
  const turn = turnSchema.safeParse(json);
  if (!turn.success) return reply(res, 400, { error: 'not a BotState', issues: turn.error.issues });
  try {
    return reply(res, 200, choose(turn.data));
  } catch (error) {
    if (error instanceof NoMoveError) return reply(res, 400, { error: error.message });
    throw error;
  }
}

/**
 * Starts an example push bot: a node:http server answering each `POST` of a `BotState` with a
 * `BotAction`. With `secret` it checks the Standard Webhooks signature and answers 401 when it does
 * not verify. A bad body gets 400; non-POST methods 405.
 *
 * @example
 * const bot = await startBot('greedy', { port: 0 });
 * // register bot.url with the arena…
 * await bot.close();
 */
export async function startBot(kind: BotKind, options: BotOptions): Promise<RunningBot> {
  const choose = chooser(kind, options);
  const verify = options.secret === undefined ? null : createPushVerifier(options.secret);
  const server = createServer((req, res) => {
    handle(req, res, choose, verify).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, { error: error instanceof Error ? error.message : 'failed' });
      else res.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
