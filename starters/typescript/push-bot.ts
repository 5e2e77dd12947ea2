/**
 * A Reversi Arena push bot: an HTTP server the arena calls on each of its turns.
 *
 *     npx tsx push-bot.ts --port 8000 --secret whsec_...
 *
 * The arena sends `POST <your url>` with the game state (`BotState`) as JSON, signed with the Standard
 * Webhooks scheme; this server checks the signature and answers 200 with `{"action": "<square>"}`
 * (plus `"colour"` in the solo game, whose state says `"game": "solo"`). A call that does not verify
 * gets 401. That one call is the whole protocol: matches, solo games and `POST /v1/bots/me/check` all
 * send it, there is no separate ping, and the end of a match is not announced (the arena passes for
 * you when you have no move; it never asks). Your strategy goes in strategy.ts.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { type BotState, createPushVerifier, type PushVerifier } from '@reversi-arena/client';
import { chooseMove } from './strategy.ts';

// A BotState is a few kilobytes; anything much bigger is not the arena.
const MAX_BODY_BYTES = 1024 * 1024;

const USAGE = 'usage: npx tsx push-bot.ts --port 8000 --secret whsec_… [--host 0.0.0.0]';

const log = (message: string) => console.log(`${new Date().toTimeString().slice(0, 8)} ${message}`);

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** The request's bytes, or null past MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Whether the body looks like a BotState: enough to hand it to the strategy. */
function isBotState(value: unknown): value is BotState {
  const state = value as Partial<BotState> | null;
  return typeof state === 'object' && state !== null && Array.isArray(state.legalMoves);
}

/** Answers one call: verify, parse, choose. Every error is answered, never thrown. */
async function handle(req: IncomingMessage, res: ServerResponse, verify: PushVerifier): Promise<void> {
  if (req.method !== 'POST') {
    return reply(res, 405, { error: 'the arena POSTs the state here' }, { allow: 'POST' });
  }
  const body = await readBody(req);
  if (body === null) return reply(res, 413, { error: 'body too large' }, { connection: 'close' });
  // The signature covers the bytes as sent: check it before parsing anything.
  const check = verify(req.headers, body);
  if (!check.ok) {
    log(`refused a call: ${check.reason}`);
    return reply(res, 401, { error: check.reason });
  }
  let state: unknown;
  try {
    state = JSON.parse(body.toString('utf8'));
  } catch {
    return reply(res, 400, { error: 'the body is not JSON' });
  }
  if (!isBotState(state)) return reply(res, 400, { error: 'not a BotState' });
  if (state.legalMoves.length === 0) return reply(res, 400, { error: 'no legal move in this state' });
  let action: ReturnType<typeof chooseMove>;
  try {
    action = chooseMove(state);
  } catch (error) {
    // A bug in the strategy: 500 (the arena records a bot-error), and keep serving.
    log(`the strategy failed:\n${error instanceof Error ? error.stack : String(error)}`);
    return reply(res, 500, { error: 'the bot failed to choose a move' });
  }
  log(`${state.matchId} ply ${state.ply}: ${JSON.stringify(action)}`);
  reply(res, 200, action);
}

function main(): void {
  let values: { port?: string; host?: string; secret?: string };
  try {
    ({ values } = parseArgs({
      options: { port: { type: 'string' }, host: { type: 'string' }, secret: { type: 'string' } },
    }));
  } catch (error) {
    usageError(error instanceof Error ? error.message : String(error));
  }
  const port = Number(values.port ?? '8000');
  if (!Number.isInteger(port) || port < 0 || port > 65535) usageError('--port must be a port number');
  const host = values.host ?? '127.0.0.1';
  const secret = values.secret ?? process.env.WEBHOOK_SECRET;
  if (!secret) {
    usageError('--secret whsec_… is required: the webhookSecret the arena showed at registration');
  }
  let verify: PushVerifier;
  try {
    verify = createPushVerifier(secret);
  } catch (error) {
    usageError(error instanceof Error ? error.message : String(error));
  }

  const server = createServer((req, res) => {
    handle(req, res, verify).catch((error: unknown) => {
      log(`failed to answer: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) reply(res, 500, { error: 'the bot failed' });
      else res.destroy();
    });
  });
  // The arena keeps its connection between turns: keep it open longer than Node's default 5 s.
  server.keepAliveTimeout = 60_000;
  server.once('error', (error: NodeJS.ErrnoException) => {
    console.error(`cannot listen on ${host}:${port}: ${error.code ?? error.message}`);
    process.exit(1);
  });
  server.listen(port, host, () => {
    const { address, port: bound } = server.address() as AddressInfo;
    const shown = address.includes(':') ? `[${address}]` : address;
    console.log(`push bot listening at http://${shown}:${bound}/ (verifying signatures)`);
  });
  // Ctrl-C, and SIGTERM (docker stop, kill) alike.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      server.close(() => {
        console.log('stopped');
        process.exit(0);
      });
      server.closeIdleConnections();
    });
  }
}

function usageError(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

main();
