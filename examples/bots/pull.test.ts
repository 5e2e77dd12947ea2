import { getEventListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { firstTurnState } from '../../test/support/loopback-bot.ts';
import { postedActions, scriptedArena, sseEvents } from '../../test/support/scripted-arena.ts';
import { runPullBot } from './pull.ts';
import { chooser } from './server.ts';

/**
 * An arena by hand: stream connection n starts a stream and runs `streams[n]` (then streams stay
 * open); posted actions are kept and answered by `act`.
 */
async function handMadeArena(streams: ((res: ServerResponse) => void)[], act: (res: ServerResponse) => void) {
  const actions = postedActions((_body, res) => act(res));
  const arena = await scriptedArena(
    streams.map((script) => (res: ServerResponse) => {
      sseEvents(res);
      script(res);
    }),
    { handle: actions.handle },
  );
  return { ...arena, posted: actions.posted };
}

const turn = { ...firstTurnState(), matchId: 'match_1', toMove: 'white', status: 'running' };
const TURN = `id: 2-0\nevent: yourTurn\ndata: ${JSON.stringify(turn)}\n\n`;
const STARTED = 'id: 1-0\nevent: matchStarted\ndata: {"matchId":"match_1"}\n\n';

let arena: Awaited<ReturnType<typeof handMadeArena>> | undefined;
afterEach(() => arena?.close());

/** Runs the greedy pull bot against the hand-made `arena` until `stop` aborts. */
function runGreedy(onEvent?: (event: string) => void) {
  const stop = new AbortController();
  const running = runPullBot({
    arena: arena!.url,
    token: 'rvb_x',
    choose: chooser('greedy'),
    signal: stop.signal,
    ...(onEvent ? { onEvent } : {}),
  });
  return { stop, running };
}

describe('runPullBot', () => {
  describe('when posting a move fails', () => {
    it('reconnects from the event before that turn, so the arena tells it again', async () => {
      let failures = 1;
      arena = await handMadeArena(
        [(res) => res.write(`retry: 100\n\n${STARTED}${TURN}`), (res) => res.write(TURN)],
        (res) => (failures-- > 0 ? res.writeHead(503).end('{"status":503}') : res.writeHead(200).end('{}')),
      );
      const events: string[] = [];
      const { stop, running } = runGreedy((event) => events.push(event));
      await arena.connection(1);
      await expect.poll(() => arena?.posted.length).toBe(2);
      stop.abort();
      await running;
      expect(arena.seen[1]?.headers['last-event-id']).toBe('1-0');
      expect(arena.posted).toEqual([
        { action: 'e3', ply: 1 },
        { action: 'e3', ply: 1 },
      ]);
      expect(events).toEqual([
        'connected',
        'matchStarted',
        'yourTurn',
        'disconnected',
        'connected',
        'yourTurn',
      ]);
    });
  });

  describe('over many turns', () => {
    it('leaves no listener per move on the signal it runs until', async () => {
      const turns = Array.from({ length: 30 }, (_, i) => {
        const state = { ...turn, matchId: `match_${i}` };
        return `id: ${i + 2}-0\nevent: yourTurn\ndata: ${JSON.stringify(state)}\n\n`;
      });
      arena = await handMadeArena([(res) => res.write(`${STARTED}${turns.join('')}`)], (res) =>
        res.writeHead(200).end('{}'),
      );
      const { stop, running } = runGreedy();
      await expect.poll(() => arena?.posted.length).toBe(30);
      // fetch keeps a listener on its request's signal until that request is collected: one per
      // move on a signal that lives as long as the bot, without a signal of each request's own.
      expect(getEventListeners(stop.signal, 'abort').length).toBeLessThan(5);
      stop.abort();
      await running;
    });
  });

  describe('when the stream ends', () => {
    it("reconnects after the stream's retry: delay, from the last event", async () => {
      arena = await handMadeArena([(res) => res.end(`retry: 400\n\n${STARTED}`)], (res) =>
        res.writeHead(200).end('{}'),
      );
      const { stop, running } = runGreedy();
      await arena.connection(1);
      stop.abort();
      await running;
      const [first, second] = arena.seen;
      expect(second?.headers['last-event-id']).toBe('1-0');
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(400 - 5);
    });
  });
});
