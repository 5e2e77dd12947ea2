import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botEvents, PullService, type StreamItem } from '../../src/arena/pull.ts';
import { compareIds } from '../../src/connections/stream-waits.ts';
import { BOT_EVENTS_KEPT, storeKeys } from '../../src/redis/keys.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { bearer, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { openSse } from '../support/sse.ts';
import { nextTurn, pullApi } from './pull-api.ts';

let world: PullArena;
beforeAll(async () => {
  world = await startPullArena();
});
afterAll(() => world.close());

describe("a bot's event stream opened while a turn is opened", () => {
  it('tells that turn once, though both its snapshot and its events hold it', async () => {
    const { h, arena, pushBot } = world;
    const puller = await registerBot(h, { name: 'snapshot-pull' });
    const pusher = await registerBot(h, { name: 'snapshot-push', url: pushBot.url });
    const id = await createMatch(h, pusher.id, puller.id); // white, the pull bot, moves first
    const run = new AbortController();
    const played = arena.runner.play(id, run.signal);
    await pullApi(h).awaitTurn(id, puller); // the turn is open and its event appended

    // The race, made certain: the stream's start was fixed before the turn's event (id 0-0), and
    // its snapshot is read after the turn opened.
    const pull = new RedisPullStore(h.redis, h.prefix);
    const service = new PullService({ stores: h.stores, pull, maxStreamsPerBot: 4 });
    const closed = new AbortController();
    const lease = await service.holdStream(puller.id, 60_000);
    const items: StreamItem[] = [];
    const stream = botEvents(
      service,
      { stores: h.stores, pull },
      puller.id,
      { after: '0-0', snapshot: true },
      closed.signal,
      200,
      lease,
    );
    for await (const item of stream) {
      items.push(item);
      if (item === 'keep-alive') break; // every event so far has been told
    }
    closed.abort();
    await stream.return(undefined);
    run.abort();
    await played;
    await pull.close();

    const turns = items.filter((item) => item !== 'keep-alive' && item.type === 'yourTurn');
    expect(turns).toHaveLength(1);
    expect(items.filter((item) => item !== 'keep-alive' && item.type === 'matchStarted')).toHaveLength(1);
  });
});

describe("a bot's event stream resumed from further back than it keeps", () => {
  it('starts with a yourTurn for each match waiting for the bot, as a new connection does', async () => {
    const { h, arena, pushBot, base } = world;
    const puller = await registerBot(h, { name: 'trimmed-pull' });
    const pusher = await registerBot(h, { name: 'trimmed-push', url: pushBot.url });
    const pull = new RedisPullStore(h.redis, h.prefix);
    const seen = await pull.lastEventId(puller.id); // what the bot had read before it went away
    const id = await createMatch(h, pusher.id, puller.id, { rules: { timeLimitMs: 30_000 } });
    const run = new AbortController();
    const played = arena.runner.play(id, run.signal);
    try {
      const turn = await pullApi(h).awaitTurn(id, puller);
      // The match's events, then more than the stream keeps: its yourTurn is trimmed away.
      for (let i = 0; i < BOT_EVENTS_KEPT + 200; i++)
        await pull.appendEvent(puller.id, 'matchFinished', JSON.stringify({ filler: i }));
      const [oldest] = await h.redis.xrange(storeKeys(h.prefix).botEvents(puller.id), '-', '+', 'COUNT', 1);
      expect(compareIds(oldest![0], seen)).toBeGreaterThan(0);

      const stream = await openSse(`${base}/v1/bots/me/events`, {
        ...bearer(puller.token),
        'last-event-id': seen,
      });
      try {
        const told = await Promise.race([
          nextTurn(stream, id),
          new Promise<never>((_, fail) => setTimeout(() => fail(new Error('no yourTurn within 3 s')), 3000)),
        ]);
        expect(told).toMatchObject({ matchId: id, ply: turn.ply, you: turn.you });
      } finally {
        stream.close();
      }
    } finally {
      run.abort();
      await played;
      await pull.close();
    }
  });
});
