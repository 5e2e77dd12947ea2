import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { firstTurnState } from '../../test/support/loopback-bot.ts';
import { runPullBot } from './pull.ts';
import { chooser } from './server.ts';

/**
 * An arena by hand: stream connection n runs `streams[n]` (then streams stay open); posted actions
 * are answered by `act`. Keeps each stream connection's headers and time.
 */
async function handMadeArena(streams: ((res: ServerResponse) => void)[], act: (res: ServerResponse) => void) {
  const seen: { headers: IncomingHttpHeaders; at: number }[] = [];
  const posted: unknown[] = [];
  const waiting = new Map<number, () => void>();
  const open: ServerResponse[] = [];
  const server = createServer(async (req, res) => {
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      posted.push(JSON.parse(Buffer.concat(chunks).toString()));
      res.setHeader('content-type', 'application/json');
      return act(res);
    }
    const n = seen.length;
    seen.push({ headers: req.headers, at: performance.now() });
    open.push(res);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    streams[n]?.(res);
    waiting.get(n)?.();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    posted,
    connection: (n: number) =>
      new Promise<void>((resolve) => (seen[n] ? resolve() : waiting.set(n, resolve))),
    close: () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

const turn = { ...firstTurnState(), matchId: 'match_1', toMove: 'white', status: 'running' };
const TURN = `id: 2-0\nevent: yourTurn\ndata: ${JSON.stringify(turn)}\n\n`;
const STARTED = 'id: 1-0\nevent: matchStarted\ndata: {"matchId":"match_1"}\n\n';

let arena: Awaited<ReturnType<typeof handMadeArena>> | undefined;
afterEach(() => arena?.close());

describe('runPullBot', () => {
  describe('when posting a move fails', () => {
    it('reconnects from the event before that turn, so the arena tells it again', async () => {
      let failures = 1;
      arena = await handMadeArena(
        [(res) => res.write(`retry: 100\n\n${STARTED}${TURN}`), (res) => res.write(TURN)],
        (res) => (failures-- > 0 ? res.writeHead(503).end('{"status":503}') : res.writeHead(200).end('{}')),
      );
      const stop = new AbortController();
      const events: string[] = [];
      const running = runPullBot({
        arena: arena.url,
        token: 'rvb_x',
        choose: chooser('greedy'),
        signal: stop.signal,
        onEvent: (event) => events.push(event),
      });
      await arena.connection(1);
      await expect.poll(() => arena?.posted.length).toBe(2);
      stop.abort();
      await running;
      expect(arena.seen[1]?.headers['last-event-id']).toBe('1-0');
      expect(arena.posted).toEqual([
        { action: 'e3', ply: 1 },
        { action: 'e3', ply: 1 },
      ]);
      expect(events).toEqual(['matchStarted', 'yourTurn', 'disconnected', 'yourTurn']);
    });
  });

  describe('when the stream ends', () => {
    it("reconnects after the stream's retry: delay, from the last event", async () => {
      arena = await handMadeArena([(res) => res.end(`retry: 400\n\n${STARTED}`)], (res) =>
        res.writeHead(200).end('{}'),
      );
      const stop = new AbortController();
      const running = runPullBot({
        arena: arena.url,
        token: 'rvb_x',
        choose: chooser('greedy'),
        signal: stop.signal,
      });
      await arena.connection(1);
      stop.abort();
      await running;
      const [first, second] = arena.seen;
      expect(second?.headers['last-event-id']).toBe('1-0');
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(400 - 5);
    });
  });
});
