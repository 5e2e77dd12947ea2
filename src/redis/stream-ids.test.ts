import { describe, expect, it } from 'vitest';
import { compareIds } from '../connections/stream-waits.ts';

/** The plain reading of an id: both parts as 64-bit numbers, a missing sequence being 0. */
function reference(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = b.split('-').map(BigInt);
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}

describe('compareIds', () => {
  const ids = [
    '0-0',
    '0',
    '0-1',
    '1-0',
    '0001-0',
    '1733250000000-0',
    '1733250000000-1',
    '1733250000000-10',
    '1733250000001-0',
    '999999999999999-0',
    '999999999999999-999999999999999',
    '1000000000000000-0',
    '9007199254740993-0',
    '9007199254740992-0',
    '18446744073709551615-18446744073709551614',
    '18446744073709551615-18446744073709551615',
    '1733250000000-9007199254740993',
    '1733250000000-9007199254740992',
  ];

  it('orders every pair of ids as their 64-bit parts do', () => {
    for (const a of ids)
      for (const b of ids) expect([a, b, compareIds(a, b)]).toEqual([a, b, reference(a, b)]);
  });

  it('orders random ids around the edge of exact doubles as their 64-bit parts do', () => {
    const digits = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        i === 0 ? 1 + Math.floor(Math.random() * 9) : Math.floor(Math.random() * 10),
      ).join('');
    for (let i = 0; i < 2000; i++) {
      const a = `${digits(13 + (i % 5))}-${digits(1 + (i % 17))}`;
      const b =
        i % 3 === 0
          ? a.replace(/\d$/, (d) => String((Number(d) + 1) % 10))
          : `${digits(13 + (i % 4))}-${digits(1 + (i % 19))}`;
      expect([a, b, compareIds(a, b)]).toEqual([a, b, reference(a, b)]);
    }
  });
});
