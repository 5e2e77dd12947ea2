import {
  type BotEvent,
  BotEventStream,
  type Reconnect,
  StreamIdleError,
  TokenRefusedError,
} from '@reversi-arena/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedArena, scriptedArena, sseEvents } from '../support/scripted-arena.ts';

const turn = { matchId: 'match_1', ply: 3, you: 'black', toMove: 'black', legalMoves: ['d3'] };
const TURN = `id: 2-0\nevent: yourTurn\ndata: ${JSON.stringify(turn)}`;
const STARTED = 'id: 1-0\nevent: matchStarted\ndata: {"matchId":"match_1"}';
const FINISHED =
  'id: 3-0\nevent: matchFinished\ndata: {"matchId":"match_1","status":"aborted","result":{"winner":null,"discs":{"black":0,"white":0},"reason":"aborted"}}';

let arena: ScriptedArena | undefined;
afterEach(() => {
  arena?.close();
  arena = undefined;
});

/** Runs `loop` over a stream of the hand-made arena until the test aborts `signal`. */
function follow(
  options: Partial<ConstructorParameters<typeof BotEventStream>[0]> & { signal: AbortSignal },
  loop: (events: BotEventStream) => Promise<void>,
) {
  const events = new BotEventStream({ baseUrl: arena!.url, token: 'rvb_test', ...options });
  return { events, done: loop(events) };
}

describe('BotEventStream', () => {
  describe('when the loop throws while handling an event (a move it could not post)', () => {
    it('resumes from the last handled event, so the arena tells that turn again', async () => {
      arena = await scriptedArena([
        (res) => sseEvents(res, 'retry: 150', STARTED, TURN),
        (res) => {
          sseEvents(res, TURN, FINISHED);
          res.end();
        },
      ]);
      const signal = new AbortController();
      const handled: BotEvent[] = [];
      let failed = false;
      const { events, done } = follow({ signal: signal.signal }, async (events) => {
        while (!signal.signal.aborted) {
          try {
            for await (const event of events) {
              if (event.event === 'yourTurn' && !failed) {
                failed = true;
                throw new Error('the post failed');
              }
              handled.push(event);
            }
          } catch {
            expect(events.lastEventId).toBe('1-0');
          }
        }
      });

      const [first, second, third] = await Promise.all([0, 1, 2].map((n) => arena!.connection(n)));
      signal.abort();
      await done;
      expect(first?.headers).toMatchObject({ authorization: 'Bearer rvb_test', accept: 'text/event-stream' });
      expect(first?.headers['last-event-id']).toBeUndefined();
      expect(second?.headers['last-event-id']).toBe('1-0');
      expect(handled.map(({ event, id }) => [event, id])).toEqual([
        ['matchStarted', '1-0'],
        ['yourTurn', '2-0'],
        ['matchFinished', '3-0'],
      ]);
      expect(handled[1]?.data).toEqual(turn);
      // The stream ended: it came back after its `retry:`, from the last event it handled.
      expect(third?.headers['last-event-id']).toBe('3-0');
      expect(third!.at - second!.at).toBeGreaterThanOrEqual(150 - 5);
      expect(events.lastEventId).toBe('3-0');
    });
  });

  describe('when the arena refuses a connection with 429', () => {
    it('waits out its Retry-After, and says so before waiting', async () => {
      arena = await scriptedArena([
        (res) => {
          res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '1' });
          res.end(JSON.stringify({ status: 429, code: 'streams/too-many', title: 'Too many' }));
        },
      ]);
      const signal = new AbortController();
      const reconnects: Reconnect[] = [];
      const { done } = follow(
        { signal: signal.signal, onReconnect: (r) => reconnects.push(r) },
        async (events) => {
          for await (const _ of events);
        },
      );
      const [first, second] = await Promise.all([arena.connection(0), arena.connection(1)]);
      signal.abort();
      await done;
      expect(second.at - first.at).toBeGreaterThanOrEqual(1000 - 5);
      expect(reconnects).toEqual([
        {
          reason: 'refused',
          delayMs: 1000,
          status: 429,
          problem: expect.objectContaining({ code: 'streams/too-many' }),
        },
      ]);
    });
  });

  describe('when the arena says it is closing', () => {
    it('yields arenaClosing, then reconnects after the pause it asks for, from the last event', async () => {
      arena = await scriptedArena([
        (res) => {
          sseEvents(res, 'retry: 5000', STARTED, 'event: arenaClosing\ndata: {"reconnectAfterMs":200}');
          res.end();
        },
      ]);
      const signal = new AbortController();
      const seenEvents: string[] = [];
      const reconnects: Reconnect[] = [];
      const { done } = follow(
        { signal: signal.signal, onReconnect: (r) => reconnects.push(r) },
        async (events) => {
          for await (const event of events) seenEvents.push(event.event);
        },
      );
      const [first, second] = await Promise.all([arena.connection(0), arena.connection(1)]);
      signal.abort();
      await done;
      expect(seenEvents).toEqual(['matchStarted', 'arenaClosing']);
      expect(reconnects).toEqual([{ reason: 'closing', delayMs: 200 }]);
      expect(second.headers['last-event-id']).toBe('1-0');
      // Not the stream's `retry:` of 5 s: the pause the arena asked for.
      expect(second.at - first.at).toBeGreaterThanOrEqual(200 - 5);
      expect(second.at - first.at).toBeLessThan(4000);
    });
  });

  describe('when a connection falls silent', () => {
    it('drops it after idleTimeoutMs and reconnects', async () => {
      arena = await scriptedArena([(res) => sseEvents(res, 'retry: 100')]);
      const signal = new AbortController();
      const reconnects: Reconnect[] = [];
      const { done } = follow(
        { signal: signal.signal, idleTimeoutMs: 200, onReconnect: (r) => reconnects.push(r) },
        async (events) => {
          for await (const _ of events);
        },
      );
      const [first, second] = await Promise.all([arena.connection(0), arena.connection(1)]);
      signal.abort();
      await done;
      expect(second.at - first.at).toBeGreaterThanOrEqual(200 + 100 - 5);
      expect(reconnects).toEqual([{ reason: 'failed', delayMs: 100, error: expect.any(StreamIdleError) }]);
    });
  });

  describe('when the arena refuses the token', () => {
    it('throws TokenRefusedError naming the status and the code, and does not reconnect', async () => {
      arena = await scriptedArena([
        (res) => {
          res.writeHead(401, { 'content-type': 'application/problem+json' });
          res.end(JSON.stringify({ status: 401, code: 'auth/invalid-token', title: 'Unauthorized' }));
        },
      ]);
      const events = new BotEventStream({ baseUrl: arena.url, token: 'rvb_bad' });
      const reading = (async () => {
        for await (const _ of events);
      })();
      await expect(reading).rejects.toThrow(TokenRefusedError);
      await expect(reading).rejects.toThrow('the arena refused the token (401 auth/invalid-token)');
      expect(arena.seen).toHaveLength(1);
    });
  });

  describe('when its signal aborts', () => {
    it('ends the iteration without an error, also while waiting to reconnect', async () => {
      arena = await scriptedArena([(res) => res.end()]);
      const signal = new AbortController();
      const events = new BotEventStream({ baseUrl: arena.url, token: 'rvb_x', signal: signal.signal });
      const reading = (async () => {
        for await (const _ of events);
      })();
      await arena.connection(0);
      signal.abort();
      await expect(reading).resolves.toBeUndefined();
      expect(arena.seen).toHaveLength(1);
    });

    it('ends the iteration while a read waits on an open, silent stream', async () => {
      // The stream says one thing and then nothing (no keep-alive in this test's time).
      arena = await scriptedArena([(res) => sseEvents(res, STARTED)]);
      const signal = new AbortController();
      const events = new BotEventStream({ baseUrl: arena.url, token: 'rvb_x', signal: signal.signal });
      let heard: ((event: BotEvent) => void) | undefined;
      const first = new Promise<BotEvent>((resolve) => (heard = resolve));
      const reading = (async () => {
        for await (const event of events) heard?.(event);
      })();
      expect((await first).event).toBe('matchStarted');
      // The loop now waits for the next event, on the body's next read.
      await new Promise((settle) => setImmediate(settle));
      signal.abort();
      await expect(reading).resolves.toBeUndefined();
    }, 5000);
  });
});
