import { type BotEvent, BotEventStream, createArenaClient, type MatchState } from '@reversi-arena/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';

/** The client package against a real arena: its API over loopback HTTP, on real Redis. */

let world: PullArena;
beforeAll(async () => {
  world = await startPullArena({ SSE_KEEPALIVE_MS: '300' });
});
afterAll(() => world.close());

describe('createArenaClient', () => {
  it("reads the bot's own profile with its token, typed from the contract", async () => {
    const bot = await registerBot(world.h, { name: 'sdk-me' });
    const arena = createArenaClient({ baseUrl: `${world.base}/`, token: bot.token });
    const { data, error } = await arena.GET('/v1/bots/me');
    expect(error).toBeUndefined();
    expect(data).toMatchObject({ id: bot.id, name: 'sdk-me', kind: 'pull' });
  });

  it('answers a refused call with its problem document', async () => {
    const arena = createArenaClient({ baseUrl: world.base, token: 'rvb_not-a-token' });
    const { data, error, response } = await arena.GET('/v1/bots/me');
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ status: 401, code: 'auth/invalid-token' });
  });
});

describe('BotEventStream, on a real arena', { timeout: 60_000 }, () => {
  it('tells a turn again after the loop failed to handle it, then plays the match to its end', async () => {
    const puller = await registerBot(world.h, { name: 'sdk-resume' });
    const opponent = await registerBot(world.h, { name: 'sdk-resume-push', url: world.pushBot.url });
    const arena = createArenaClient({ baseUrl: world.base, token: puller.token });
    const stop = new AbortController();
    let opened = () => {};
    const open = new Promise<void>((resolve) => (opened = resolve));
    const events = new BotEventStream({
      baseUrl: world.base,
      token: puller.token,
      signal: stop.signal,
      onOpen: () => opened(),
    });
    const heard: BotEvent[] = [];
    let failedTurn: BotEvent | undefined;

    const playing = (async () => {
      while (!stop.signal.aborted) {
        try {
          for await (const event of events) {
            if (event.event === 'yourTurn' && failedTurn === undefined) {
              failedTurn = event;
              throw new Error('as if the post had failed');
            }
            heard.push(event);
            if (event.event === 'yourTurn') await play(event.data);
            if (event.event === 'matchFinished') return;
          }
        } catch (error) {
          if (error !== undefined && failedTurn === undefined) throw error;
        }
      }
    })();
    async function play(state: MatchState) {
      if (state.toMove !== state.you) return;
      const { response } = await arena.POST('/v1/matches/{matchId}/actions', {
        params: { path: { matchId: state.matchId } },
        body: { action: state.legalMoves[0]!, ply: state.ply },
      });
      expect([200, 409]).toContain(response.status);
    }

    // Open, it is listening: the arena counts the bot online before it answers.
    await open;
    expect(await new RedisPullStore(world.h.redis, world.h.prefix).isOnline(puller.id)).toBe(true);
    const id = await createMatch(world.h, opponent.id, puller.id, {
      rules: { timeLimitMs: 5000, overageMs: 0 },
    });
    try {
      expect(await world.arena.runner.play(id, new AbortController().signal)).toBe('finished');
      await playing;
    } finally {
      stop.abort();
    }

    // The turn it failed on came again, as the same event: resumed by Last-Event-ID, not a new snapshot.
    const turns = heard.filter((event) => event.event === 'yourTurn');
    expect(failedTurn?.id).toEqual(expect.any(String));
    expect(turns[0]).toEqual(failedTurn);
    // What it had handled before was not told twice.
    expect(heard.filter((event) => event.event === 'matchStarted')).toHaveLength(1);
    const match = await arena.GET('/v1/matches/{matchId}', { params: { path: { matchId: id } } });
    expect(match.data?.result?.reason).toBe('completed');
    // Left by a `return` inside the loop, matchFinished counts as not handled: the next loop would start there.
    expect(events.lastEventId).toBe(heard.at(-2)?.id);
  });
});
