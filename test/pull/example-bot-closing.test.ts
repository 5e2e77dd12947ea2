import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLine } from '../../examples/bots/event-line.ts';
import { chooser, runPullBot } from '../../examples/bots/index.ts';

const RECONNECT_AFTER_MS = 300;

/**
 * An arena's event stream, by hand: the first connection gets one event and `arenaClosing`, then
 * ends; later ones stay open. `second` resolves with the second connection's headers and delay.
 */
async function closingArena() {
  let connections = 0;
  let closedAt = 0;
  let reconnected!: (seen: { headers: IncomingHttpHeaders; afterMs: number }) => void;
  const second = new Promise<{ headers: IncomingHttpHeaders; afterMs: number }>((resolve) => {
    reconnected = resolve;
  });
  const open: ServerResponse[] = [];
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    connections++;
    if (connections === 1) {
      res.write('id: 1-0\nevent: matchStarted\ndata: {"matchId":"match_1"}\n\n');
      res.end(`event: arenaClosing\ndata: {"reconnectAfterMs":${RECONNECT_AFTER_MS}}\n\n`);
      closedAt = performance.now();
    } else {
      open.push(res);
      reconnected({ headers: req.headers, afterMs: performance.now() - closedAt });
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    second,
    close: () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

let arena: Awaited<ReturnType<typeof closingArena>> | undefined;
afterEach(() => arena?.close());

describe('the example pull bot, told the arena is closing', () => {
  it('reconnects after the pause the arena asks for, from its last event, without an error', async () => {
    arena = await closingArena();
    const stop = new AbortController();
    const events: string[] = [];
    const running = runPullBot({
      arena: arena.url,
      token: 'any',
      choose: chooser('random'),
      signal: stop.signal,
      onEvent: (event) => events.push(event),
    });

    const { headers, afterMs } = await arena.second;
    stop.abort();
    await running;
    expect(headers['last-event-id']).toBe('1-0');
    // Measured from the server's side, so never shorter, but for a timer firing a millisecond early.
    expect(afterMs).toBeGreaterThanOrEqual(RECONNECT_AFTER_MS - 5);
    expect(events).toEqual(['matchStarted', 'arenaClosing']);
  });

  it('prints one line saying so', () => {
    expect(eventLine('arenaClosing', { reconnectAfterMs: 2000 })).toBe(
      'the arena is closing; reconnecting in 2 s',
    );
  });
});
