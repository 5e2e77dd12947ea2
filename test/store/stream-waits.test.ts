import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelWakeups } from '../../src/connections/channel-wakeups.ts';
import { StreamWaits, type WaitHandle } from '../../src/connections/stream-waits.ts';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test:stream-waits:${process.pid}:${Date.now()}`;
let redis: Redis;
beforeAll(() => {
  redis = new Redis(url);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const pause = (ms: number) => new Promise((resume) => setTimeout(resume, ms));
const values = (entries: [string, string[]][]) => entries.map(([, fields]) => fields[1]);
const lastId = (entries: [string, string[]][]) => entries.at(-1)?.[0] ?? '0-0';

let made = 0;

/** The connection, its XREAD replies held back 100 ms: an append can be heard while a read is out. */
function lateReads(): Redis {
  return new Proxy(redis, {
    get(target, property, receiver) {
      if (property !== 'xread') return Reflect.get(target, property, receiver);
      return async (...args: (string | number)[]) => {
        const reply = await target.xread(...(args as ['COUNT', number, 'STREAMS', string, string]));
        await pause(100);
        return reply;
      };
    },
  });
}

/**
 * Waits as RedisPullStore makes them, over `reads`, with a subscriber and an appends channel of
 * their own; `append` writes to a stream as the arena's writers do, the XADD and its announcement
 * in one transaction.
 */
function streamWaits(
  reads: Redis = redis,
  subscriberOptions: RedisOptions = {},
  onError?: (error: Error) => void,
) {
  const name = `${prefix}:subscriber-${++made}`;
  const channel = `${prefix}:appended-${made}`;
  const wakeups = new ChannelWakeups(() =>
    redis.duplicate({
      maxRetriesPerRequest: null,
      enableReadyCheck: false,
      connectionName: name,
      ...subscriberOptions,
    }),
  );
  const waits = new StreamWaits(reads, wakeups, channel, onError);
  return {
    waits,
    name,
    /** How many connections listen on the channel. */
    listeners: async () => (await redis.pubsub('SHARDNUMSUB', channel))[1],
    async append(key: string, value: string): Promise<string> {
      const [[, id]] = (await redis.multi().xadd(key, '*', 'n', value).spublish(channel, key).exec()) as [
        [null, string],
      ];
      return id;
    },
    async close() {
      await waits.close();
      await wakeups.close();
    },
  };
}

describe('StreamWaits', () => {
  it('hands each wait the entries past its own id, woken by the announcement of an append', async () => {
    const { waits, append, close } = streamWaits();
    const [a, b] = [`${prefix}:a`, `${prefix}:b`];
    const signal = new AbortController().signal;
    const first = await append(a, '1');
    const fromStart = waits.wait(a, '0-0', 2000, signal);
    const fromFirst = waits.wait(a, first, 2000, signal);
    const onB = waits.wait(b, '0-0', 2000, signal);
    expect(values(await fromStart)).toEqual(['1']); // already there: answered at once
    await pause(20);
    await append(a, '2');
    await append(b, '3');
    expect(values(await fromFirst)).toEqual(['2']);
    expect(values(await onB)).toEqual(['3']);
    await close();
  });

  it('is not woken by an append nobody announced: the channel is what wakes a wait', async () => {
    const { waits, close } = streamWaits();
    const key = `${prefix}:silent`;
    const signal = new AbortController().signal;
    const waiting = waits.wait(key, '0-0', 400, signal);
    await pause(50);
    await redis.xadd(key, '*', 'n', 'quiet');
    expect(await waiting).toEqual([]);
    await close();
  });

  it('gives a wait that began during a read, from an older id, every entry past its own id', async () => {
    // Replies to XREAD come 100 ms late: the second wait begins while the first's read is out.
    const { waits, append, close } = streamWaits(lateReads());
    const key = `${prefix}:late`;
    const signal = new AbortController().signal;
    const first = await redis.xadd(key, '*', 'n', '1');
    const newer = waits.wait(key, first as string, 3000, signal);
    await pause(300); // its own read answered: nothing new
    await append(key, '2');
    await pause(50); // the read the append woke is out, from `first`
    const older = waits.wait(key, '0-0', 3000, signal);
    expect(values(await newer)).toEqual(['2']);
    expect(values(await older)).toEqual(['1', '2']);
    await close();
  });

  it('does not read again for a holder that waits again at once from where a read left it, and misses nothing', async () => {
    let xreads = 0;
    const counted = new Proxy(redis, {
      get(target, property, receiver) {
        if (property !== 'xread') return Reflect.get(target, property, receiver);
        return (...args: (string | number)[]) => {
          xreads++;
          return target.xread(...(args as ['COUNT', number, 'STREAMS', string, string]));
        };
      },
    });
    const { waits, append, close } = streamWaits(counted);
    const key = `${prefix}:again`;
    const signal = new AbortController().signal;
    const handle: WaitHandle = { wait: undefined };
    const first = waits.wait(key, '0-0', 2000, signal, handle);
    await expect.poll(() => xreads).toBe(1); // its own read: nothing yet
    // As an event stream does: the next wait begins as soon as the last one answered.
    const second = first.then((entries) => waits.wait(key, lastId(entries), 2000, signal, handle));
    await append(key, '1');
    await first; // and the next wait has begun: nothing was announced while the read was out
    await pause(50); // time for a read of its own, had it made one
    await append(key, '2');
    expect(values(await second)).toEqual(['2']);
    expect(xreads).toBe(3); // a read per append, and none when the holder waited again
    // Appended while nobody waited, heard and dropped: a later wait from the same place reads it.
    await append(key, '3');
    await pause(50);
    const secondId = lastId((await redis.xrange(key, '-', '+')).slice(0, 2));
    expect(values(await waits.wait(key, secondId, 2000, signal, handle))).toEqual(['3']);
    expect(xreads).toBe(4);
    await close();
  });

  it('serves a holder waiting again with what was announced while its last read was out', async () => {
    // Replies to XREAD come 100 ms late: the second append is heard while the read of the first is out.
    const { waits, append, close } = streamWaits(lateReads());
    const key = `${prefix}:heard-meanwhile`;
    const signal = new AbortController().signal;
    const handle: WaitHandle = { wait: undefined };
    const first = waits.wait(key, '0-0', 3000, signal, handle);
    await pause(150); // its own read answered: nothing yet
    const second = first.then((entries) => waits.wait(key, lastId(entries), 3000, signal, handle));
    await append(key, '1');
    await pause(30); // the read the first append woke is out
    await append(key, '2');
    expect(values(await first)).toEqual(['1']);
    expect(values(await second)).toEqual(['2']);
    await close();
  });

  it('reads again for a holder that waits again later, when an append was announced while its last read was out', async () => {
    const { waits, append, close } = streamWaits(lateReads());
    const key = `${prefix}:heard-then-away`;
    const signal = new AbortController().signal;
    const handle: WaitHandle = { wait: undefined };
    const first = waits.wait(key, '0-0', 3000, signal, handle);
    await pause(150); // its own read answered: nothing yet
    await append(key, '1');
    await pause(30); // the read the first append woke is out
    await append(key, '2'); // heard while it is out; the read it wakes finds no wait by its answer
    const got = await first;
    expect(values(got)).toEqual(['1']);
    // As an event stream renewing its lease does: a round trip or two before it waits again.
    await redis.ping();
    await pause(150);
    expect(values(await waits.wait(key, lastId(got), 1000, signal, handle))).toEqual(['2']);
    await close();
  });

  it('reads a stream again when a read came back full, until every wait on it is served', async () => {
    const { waits, close } = streamWaits();
    const key = `${prefix}:long`;
    const signal = new AbortController().signal;
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) ids.push((await redis.xadd(key, '*', 'n', String(i))) as string);
    const behind = waits.wait(key, '0-0', 2000, signal);
    const ahead = waits.wait(key, ids[119] as string, 2000, signal);
    expect(await behind).toHaveLength(100);
    expect(values(await ahead)).toEqual(Array.from({ length: 30 }, (_, i) => String(120 + i)));
    await close();
  });

  it('reads every waited stream again when its subscriber comes back: what was said while it was away is not lost', async () => {
    const { waits, name, listeners, close } = streamWaits();
    const key = `${prefix}:away`;
    const signal = new AbortController().signal;
    const waiting = waits.wait(key, '0-0', 5000, signal);
    await expect.poll(listeners).toBe(1);
    const started = performance.now();
    const line = ((await redis.client('LIST')) as string)
      .split('\n')
      .find((l) => l.includes(`name=${name} `));
    await redis.client('KILL', 'ID', /id=(\d+)/.exec(line ?? '')?.[1] ?? '0');
    // Written while the subscriber reconnects, and never announced: only the re-read finds it.
    await redis.xadd(key, '*', 'n', 'missed');
    expect(values(await waiting)).toEqual(['missed']);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(((await redis.client('LIST')) as string).includes(`name=${name} `)).toBe(true);
    await close();
  });

  it('ends every wait with nothing when closed, and stops listening', async () => {
    const { waits, listeners, close } = streamWaits();
    const signal = new AbortController().signal;
    const waiting = [
      waits.wait(`${prefix}:c1`, '0-0', 5000, signal),
      waits.wait(`${prefix}:c2`, '0-0', 5000, signal),
    ];
    await expect.poll(listeners).toBe(1);
    await close();
    expect(await Promise.all(waiting)).toEqual([[], []]);
    expect(await waits.wait(`${prefix}:c1`, '0-0', 5000, signal)).toEqual([]);
    await expect.poll(listeners).toBe(0);
  });

  it('listens again when its subscription was refused, then reads every waited stream', async () => {
    // No offline queue, not yet connected: the first SUBSCRIBE is refused, the connection then opens.
    const { waits, listeners, close } = streamWaits(redis, { lazyConnect: true, enableOfflineQueue: false });
    const key = `${prefix}:refused`;
    const signal = new AbortController().signal;
    const started = performance.now();
    const waiting = waits.wait(key, '0-0', 5000, signal);
    // Written while nobody listened, and never announced: only the read after listening finds it.
    await redis.xadd(key, '*', 'n', 'unheard');
    expect(values(await waiting)).toEqual(['unheard']);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await listeners()).toBe(1);
    await close();
  });

  it('tries a read that failed again, and reports each run of failures once, to a listener that may throw', async () => {
    let failures = 2;
    const flakyReads = new Proxy(redis, {
      get(target, property, receiver) {
        if (property !== 'xread') return Reflect.get(target, property, receiver);
        return async (...args: (string | number)[]) => {
          if (failures-- > 0) throw new Error('Redis is away');
          return target.xread(...(args as ['COUNT', number, 'STREAMS', string, string]));
        };
      },
    });
    const reported: string[] = [];
    // A listener that throws, too: the retries go on.
    const { waits, close } = streamWaits(flakyReads, {}, (error) => {
      reported.push(error.message);
      throw new Error('the listener failed');
    });
    const key = `${prefix}:flaky`;
    await redis.xadd(key, '*', 'n', 'there');
    expect(values(await waits.wait(key, '0-0', 3000, new AbortController().signal))).toEqual(['there']);
    expect(failures).toBe(-1);
    expect(reported).toEqual(['Redis is away']);
    // A read succeeded since: the next failure is a new run, reported again.
    failures = 1;
    const waiting = waits.wait(key, '0-0', 3000, new AbortController().signal);
    expect(values(await waiting)).toEqual(['there']);
    expect(reported).toEqual(['Redis is away', 'Redis is away']);
    await close();
  });

  it('reports a refused subscription, and listens again after a listener that throws', async () => {
    const reported: Error[] = [];
    const { waits, close } = streamWaits(redis, { lazyConnect: true, enableOfflineQueue: false }, (error) => {
      reported.push(error);
      throw new Error('the listener failed');
    });
    const key = `${prefix}:refused-reported`;
    await redis.xadd(key, '*', 'n', 'read');
    expect(values(await waits.wait(key, '0-0', 5000, new AbortController().signal))).toEqual(['read']);
    expect(reported).toHaveLength(1);
    await close();
  });

  it('closed before its subscription is in place, ends its waits and leaves nothing subscribed', async () => {
    const { waits, listeners, close } = streamWaits();
    const waiting = waits.wait(`${prefix}:early`, '0-0', 3000, new AbortController().signal);
    await close();
    expect(await waiting).toEqual([]);
    await pause(200);
    expect(await listeners()).toBe(0);
  });

  it('ends a wait with nothing at its timeout or when its signal aborts', async () => {
    const { waits, close } = streamWaits();
    const stop = new AbortController();
    const timed = waits.wait(`${prefix}:t1`, '0-0', 100, new AbortController().signal);
    const aborted = waits.wait(`${prefix}:t2`, '0-0', 5000, stop.signal);
    stop.abort();
    expect(await aborted).toEqual([]);
    expect(await timed).toEqual([]);
    await close();
  });
});
