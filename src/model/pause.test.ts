import { describe, expect, it } from 'vitest';
import { isPausedAt, nextPause } from './pause.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const backoff = { firstMs: 5 * MINUTE, maxMs: 24 * HOUR };

describe('nextPause', () => {
  it('lasts the first term when the bot was never paused', () => {
    expect(nextPause(null, 1000, backoff)).toEqual({ since: 1000, until: 1000 + 5 * MINUTE, level: 1 });
  });

  it('grows four times with each pause that starts within the longest term of the last one’s end', () => {
    let last = nextPause(null, 0, backoff);
    const lengths = [last.until - last.since];
    for (let i = 0; i < 6; i++) {
      last = nextPause(last, last.until + MINUTE, backoff);
      lengths.push(last.until - last.since);
    }
    expect(lengths.map((ms) => ms / MINUTE)).toEqual([5, 20, 80, 320, 1280, 1440, 1440]);
    expect(last.level).toBe(7);
  });

  it('starts over after a quiet time as long as the longest term', () => {
    const last = { since: 0, until: HOUR, level: 5 };
    expect(nextPause(last, HOUR + 24 * HOUR - 1, backoff).level).toBe(6);
    expect(nextPause(last, HOUR + 24 * HOUR, backoff).level).toBe(1);
  });

  it('never overflows, however high the level', () => {
    const pause = nextPause({ since: 0, until: 10, level: 10_000 }, 20, backoff);
    expect(pause.until - pause.since).toBe(24 * HOUR);
  });
});

describe('isPausedAt', () => {
  it('holds from the start until its end, excluded', () => {
    const pause = { since: 0, until: 100, level: 1 };
    expect([isPausedAt(pause, 0), isPausedAt(pause, 99), isPausedAt(pause, 100)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(isPausedAt(null, 0)).toBe(false);
  });
});
