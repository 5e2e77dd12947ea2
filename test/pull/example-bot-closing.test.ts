import { afterEach, describe, expect, it } from 'vitest';
import { eventLine } from '../../examples/bots/event-line.ts';
import { chooser, runPullBot } from '../../examples/bots/index.ts';
import { scriptedArena, sseEvents } from '../support/scripted-arena.ts';

const RECONNECT_AFTER_MS = 300;

/**
 * An arena's event stream, by hand: the first connection gets one event and `arenaClosing`, then
 * ends; later ones stay open. `second` resolves with the second connection's headers and delay.
 */
async function closingArena() {
  let closedAt = 0;
  const arena = await scriptedArena([
    (res) => {
      sseEvents(
        res,
        'id: 1-0\nevent: matchStarted\ndata: {"matchId":"match_1"}',
        `event: arenaClosing\ndata: {"reconnectAfterMs":${RECONNECT_AFTER_MS}}`,
      );
      res.end();
      closedAt = performance.now();
    },
  ]);
  const second = arena.connection(1).then(({ headers, at }) => ({ headers, afterMs: at - closedAt }));
  return { ...arena, second };
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
    // Connected first; stopped as the second connection came, which it may or may not have seen open.
    expect(events[0]).toBe('connected');
    expect(events.filter((event) => event !== 'connected')).toEqual(['matchStarted', 'arenaClosing']);
  });

  it('prints one line saying so', () => {
    expect(eventLine('arenaClosing', { reconnectAfterMs: 2000 })).toBe(
      'the arena is closing; reconnecting in 2 s',
    );
  });
});
