import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SseEvent } from '../../examples/bots/sse.ts';
import { pullApi } from '../pull/pull-api.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { openSse } from '../support/sse.ts';

let world: PullArena;
beforeAll(async () => {
  world = await startPullArena();
});
afterAll(() => world?.close());

describe('a match of a pull bot, followed by a spectator', () => {
  it("tells the spectator each of the pull bot's turns with the very deadline the bot is told", async () => {
    const { h, arena, base, pushBot } = world;
    const { act, awaitTurn } = pullApi(h);
    const puller = await registerBot(h, { name: 'deadline-pull' });
    const pusher = await registerBot(h, { name: 'deadline-push', url: pushBot.url });
    const id = await createMatch(h, puller.id, pusher.id, {
      rules: { firstPlayer: 'black', timeLimitMs: 5000, overageMs: 1000 },
    });
    const spectator = await openSse(`${base}/v1/matches/${id}/events`, {});
    const events: SseEvent[] = [];
    const watched = (async () => {
      for (;;) {
        const event = await spectator.next();
        events.push(event);
        if (event.event === 'finished') return;
      }
    })();

    const played = arena.runner.play(id, new AbortController().signal);
    const told: { ply: number; deadline: string | null }[] = [];
    for (;;) {
      const state = await awaitTurn(id, puller);
      if (state.toMove === null) break;
      told.push({ ply: state.ply, deadline: state.deadline });
      expect((await act(id, puller, { action: state.legalMoves[0], ply: state.ply })).status).toBe(200);
    }
    expect(await played).toBe('finished');
    await watched;
    spectator.close();

    const seen = new Map<number, string | null>();
    for (const event of events.filter((e) => e.event === 'turn' || e.event === 'move')) {
      const data = JSON.parse(event.data);
      seen.set(data.ply, data.deadline);
    }
    expect(told.length).toBeGreaterThan(10);
    for (const { ply, deadline } of told) {
      expect(deadline, `ply ${ply}`).not.toBeNull();
      expect(seen.get(ply), `ply ${ply}`).toBe(deadline);
    }
  });
});
