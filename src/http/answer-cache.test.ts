import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache.ts';

const counter = () => {
  let loads = 0;
  return {
    load: async () => ({ value: { n: ++loads }, keep: true }),
    get loads() {
      return loads;
    },
  };
};

describe('AnswerCache', () => {
  it('serves a kept answer until its time is up, then loads it again', async () => {
    let now = 0;
    const cache = new AnswerCache({ ttlMs: 1000, maxEntries: 10, shareLoads: true, now: () => now });
    const source = counter();
    expect((await cache.get('a', source.load)).body.toString()).toBe('{"n":1}');
    now = 999;
    expect((await cache.get('a', source.load)).body.toString()).toBe('{"n":1}');
    now = 1000;
    expect((await cache.get('a', source.load)).body.toString()).toBe('{"n":2}');
  });

  it('loads again every time when a load declines to be kept', async () => {
    const cache = new AnswerCache({ ttlMs: Infinity, maxEntries: 10, shareLoads: false });
    let loads = 0;
    const load = async () => ({ value: ++loads, keep: false });
    await cache.get('a', load);
    await cache.get('a', load);
    expect(loads).toBe(2);
  });

  it('shares one load between concurrent requests only with shareLoads', async () => {
    for (const shareLoads of [true, false]) {
      const cache = new AnswerCache({ ttlMs: 1000, maxEntries: 10, shareLoads });
      const source = counter();
      await Promise.all([cache.get('a', source.load), cache.get('a', source.load)]);
      expect(source.loads).toBe(shareLoads ? 1 : 2);
    }
  });

  it('keeps no failed load', async () => {
    const cache = new AnswerCache({ ttlMs: 1000, maxEntries: 10, shareLoads: true });
    await expect(cache.get('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect((await cache.get('a', counter().load)).body.toString()).toBe('{"n":1}');
  });

  it('forgets the least recently used answer past maxEntries', async () => {
    const cache = new AnswerCache({ ttlMs: Infinity, maxEntries: 2, shareLoads: false });
    const source = counter();
    await cache.get('a', source.load);
    await cache.get('b', source.load);
    await cache.get('a', source.load);
    await cache.get('c', source.load);
    await cache.get('a', source.load);
    expect(source.loads).toBe(3);
    await cache.get('b', source.load);
    expect(source.loads).toBe(4);
  });
});
