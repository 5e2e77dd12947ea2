import { describe, expect, it } from 'vitest';
// @ts-expect-error: the pages' own JavaScript, checked by their browser tests, has no types.
import { formatDuration, timeControlText } from '../../public/assets/js/common.js';

describe("the pages' time controls in words", () => {
  it.each([
    [300, '300 ms'],
    [1000, '1 s'],
    [1500, '1.5 s'],
    [5000, '5 s'],
    [60_000, '1 min'],
    [150_000, '2 min 30 s'],
    [3_600_000, '1 h'],
  ])('says %i ms as "%s"', (ms, words) => {
    expect(formatDuration(ms)).toBe(words);
  });

  it('names the bank, or that there is none', () => {
    expect(timeControlText({ timeLimitMs: 1000, overageMs: 5000 })).toBe('1 s a move + 5 s bank');
    expect(timeControlText({ timeLimitMs: 60_000, overageMs: 0 })).toBe('1 min a move, no bank');
  });
});
