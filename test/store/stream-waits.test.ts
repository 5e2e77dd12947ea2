import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKING_READ_OPTIONS, StreamWaits, WAIT_CONNECTIONS } from '../../src/store/stream-waits.ts';

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

let made = 0;

/** Waits whose CLIENT UNBLOCK answers only `lagMs` after Redis carried it out, as on a slow link; its connections are named `name`. */
function slowUnblockWaits(lagMs: number, connections = 1, name = `${prefix}:${++made}`): StreamWaits {
  return new StreamWaits(
    // As RedisPullStore makes them: an XREAD cut by a reconnect fails, and the loop sends it again.
    () => redis.duplicate({ ...BLOCKING_READ_OPTIONS, connectionName: name }),
    async (id) => {
      const unblocked = await redis.client('UNBLOCK', id);
      await pause(lagMs);
      return unblocked;
    },
    connections,
  );
}

describe('StreamWaits', () => {
  it('hands each wait the entries past its own id, over one blocking read', async () => {
    const waits = slowUnblockWaits(0);
    const [a, b] = [`${prefix}:a`, `${prefix}:b`];
    const signal = new AbortController().signal;
    const first = await redis.xadd(a, '*', 'n', '1');
    const fromStart = waits.wait(a, '0-0', 2000, signal);
    const fromFirst = waits.wait(a, first as string, 2000, signal);
    const onB = waits.wait(b, '0-0', 2000, signal);
    await pause(20);
    await redis.xadd(a, '*', 'n', '2');
    await redis.xadd(b, '*', 'n', '3');
    expect((await fromStart).map(([, fields]) => fields[1])).toEqual(['1']);
    expect((await fromFirst).map(([, fields]) => fields[1])).toEqual(['2']);
    expect((await onB).map(([, fields]) => fields[1])).toEqual(['3']);
    await waits.close();
  });

  it('covers a wait that began while an unblock aimed at an older read was still answering', async () => {
    // The unblock for stream b cuts the first read and the next read (a, b) is sent before the
    // unblock's answer arrives; c begins then. Its cut must aim at the read in flight now.
    const waits = slowUnblockWaits(300);
    const [a, b, c] = [`${prefix}:ra`, `${prefix}:rb`, `${prefix}:rc`];
    const signal = new AbortController().signal;
    const onA = waits.wait(a, '0-0', 1500, signal);
    await pause(50);
    const onB = waits.wait(b, '0-0', 1500, signal);
    await pause(100);
    const onC = waits.wait(c, '0-0', 1000, signal);
    await pause(400);
    await redis.xadd(c, '*', 'n', 'c');
    // Before the fix, c waited for the read on (a, b) to time out (2 s) and its own 1 s passed first.
    expect((await onC).map(([, fields]) => fields[1])).toEqual(['c']);
    expect(await onA).toEqual([]);
    expect(await onB).toEqual([]);
    await waits.close();
  });

  it('cuts the read short on a connection that reconnected: it names the new connection, not the old', async () => {
    const name = `${prefix}:reconnecting`;
    const waits = slowUnblockWaits(0, 1, name);
    const [a, b] = [`${prefix}:ka`, `${prefix}:kb`];
    const signal = new AbortController().signal;
    const blockedIds = async () =>
      ((await redis.client('LIST')) as string)
        .split('\n')
        .filter((line) => line.includes(`name=${name} `) && line.includes('cmd=xread'))
        .map((line) => /\bid=(\d+)/.exec(line)?.[1]);
    const onA = waits.wait(a, '0-0', 5000, signal);
    await expect.poll(async () => (await blockedIds()).length).toBe(1);
    const [old] = await blockedIds();
    await redis.client('KILL', 'ID', old as string);
    // The reader reconnects and blocks again, as another client.
    await expect
      .poll(async () => (await blockedIds()).filter((id) => id !== old).length, { timeout: 3000 })
      .toBe(1);
    // b is not in that read: it is cut short with the new id, well before its 2 s block ends.
    const onB = waits.wait(b, '0-0', 1000, signal);
    await pause(100);
    await redis.xadd(b, '*', 'n', 'b');
    expect((await onB).map(([, fields]) => fields[1])).toEqual(['b']);
    await redis.xadd(a, '*', 'n', 'a');
    expect((await onA).map(([, fields]) => fields[1])).toEqual(['a']);
    await waits.close();
  });

  it('ends its loop when closed while its connection waits to reconnect to a Redis that is away', async () => {
    // Nothing listens on this port: the connection keeps retrying, never ready.
    let connection: Redis | undefined;
    const waits = new StreamWaits(
      () => {
        connection = new Redis('redis://127.0.0.1:1', { ...BLOCKING_READ_OPTIONS, lazyConnect: true });
        return connection;
      },
      async () => 0,
      1,
    );
    const signal = new AbortController().signal;
    expect(await waits.wait(`${prefix}:away`, '0-0', 300, signal)).toEqual([]);
    // The loop waits for the connection to be ready, listening for it.
    expect(connection?.listenerCount('ready')).toBeGreaterThan(0);
    await waits.close();
    await expect.poll(() => connection?.listenerCount('ready')).toBe(0);
    connection?.disconnect();
  });

  it('spreads the streams over its blocking connections, each read naming its own, and wakes every wait', async () => {
    const name = `${prefix}:spread`;
    const waits = slowUnblockWaits(0, WAIT_CONNECTIONS, name);
    const keys = Array.from({ length: 40 }, (_, i) => `${prefix}:spread-${i}`);
    const signal = new AbortController().signal;
    const woken = keys.map((key) => waits.wait(key, '0-0', 5000, signal));
    const readers = async () =>
      ((await redis.client('LIST')) as string)
        .split('\n')
        .filter((line) => line.includes(`name=${name} `) && line.includes('cmd=xread'));
    await expect.poll(async () => (await readers()).length).toBe(WAIT_CONNECTIONS);
    for (const key of keys) await redis.xadd(key, '*', 'key', key);
    const answers = await Promise.all(woken);
    expect(answers.map((entries) => entries.map(([, fields]) => fields[1]))).toEqual(
      keys.map((key) => [key]),
    );
    await waits.close();
  });
});
