import type { Response } from 'express';
import type { StreamItem } from '../arena/pull.ts';
import type { components } from '../contract/index.ts';
import type { Closing } from './shutdown.ts';

/** How long a client waits before it reconnects, after a dropped stream or an `arenaClosing`. */
export const RECONNECT_MS = 2000;

/** The headers of every event stream: not cached, not buffered by a proxy. */
export const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * Aborts when the client goes away or, given `closing`, when the arena closes, so a long poll or a
 * stream stops waiting at once. One signal, not `AbortSignal.any` of two: thousands are open at once.
 */
export function stopSignal(res: Response, closing?: Closing): AbortSignal {
  const controller = new AbortController();
  closing?.watch(controller);
  // A response closes when it is answered or when its connection drops first (then only it
  // aborts: an abort builds a DOMException, a stack trace, which every answer would pay).
  res.on('close', () => {
    closing?.forget(controller);
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Opens an event stream: its headers, and the reconnection delay as the first line of the first
 * block the stream sends (an event, a keep-alive or `arenaClosing`). A block of its own would be
 * no event to a browser, but generated clients (@hey-api/openapi-ts's among them) hand every block
 * to their event callback: there it arrived as an event without a name.
 */
export function openStream(res: Response): void {
  res.writeHead(200, STREAM_HEADERS);
  res.write(`retry: ${RECONNECT_MS}\n`);
}

/** Writes one item of a stream: an event (with its id, when it has one) or a keep-alive comment. */
export function writeItem(res: Response, item: StreamItem): void {
  if (item === 'keep-alive') res.write(': keep-alive\n\n');
  else res.write(`${item.id ? `id: ${item.id}\n` : ''}event: ${item.type}\ndata: ${item.data}\n\n`);
}

/**
 * Tells a client the arena is closing, before its stream ends. No id: a reconnect's Last-Event-ID
 * stays the last real event, so the client misses nothing.
 */
export function writeArenaClosing(res: Response): void {
  const data: components['schemas']['ArenaClosingEvent'] = { reconnectAfterMs: RECONNECT_MS };
  res.write(`event: arenaClosing\ndata: ${JSON.stringify(data)}\n\n`);
}
