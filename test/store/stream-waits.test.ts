import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamWaits } from '../../src/store/stream-waits.ts';

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

/** Waits whose CLIENT UNBLOCK answers only `lagMs` after Redis carried it out, as on a slow link. */
function slowUnblockWaits(lagMs: number): StreamWaits {
  return new StreamWaits(
    () => redis.duplicate({ maxRetriesPerRequest: null, commandTimeout: undefined }),
    async (id) => {
      const unblocked = await redis.client('UNBLOCK', id);
      await pause(lagMs);
      return unblocked;
    },
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
});
