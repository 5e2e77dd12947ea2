import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botEvents, PullService, type StreamItem } from '../../src/arena/pull.ts';
import { RedisPullStore } from '../../src/store/redis-pull-store.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { pullApi } from './pull-api.ts';

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
    const service = new PullService({ store: h.store, pull, maxStreamsPerBot: 4 });
    const closed = new AbortController();
    const lease = await service.holdStream(puller.id, 60_000);
    const items: StreamItem[] = [];
    const stream = botEvents(
      service,
      { store: h.store, pull },
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
