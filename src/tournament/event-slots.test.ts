import { describe, expect, it } from 'vitest';
import { nextEventStart } from './event-slots.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (iso: string) => Date.parse(iso);

describe('nextEventStart', () => {
  it('puts an hourly event on the next hour', () => {
    expect(nextEventStart(HOUR, 0, at('2026-12-07T10:30:00Z'))).toBe(at('2026-12-07T11:00:00Z'));
  });

  it('moves on to the following start once a start has come', () => {
    expect(nextEventStart(HOUR, 0, at('2026-12-07T11:00:00Z'))).toBe(at('2026-12-07T12:00:00Z'));
    expect(nextEventStart(HOUR, 0, at('2026-12-07T10:59:59.999Z'))).toBe(at('2026-12-07T11:00:00Z'));
  });

  it('puts a daily event at its time of day, today or tomorrow', () => {
    expect(nextEventStart(DAY, 18 * HOUR, at('2026-12-07T17:59:00Z'))).toBe(at('2026-12-07T18:00:00Z'));
    expect(nextEventStart(DAY, 18 * HOUR, at('2026-12-07T18:00:00Z'))).toBe(at('2026-12-08T18:00:00Z'));
    expect(nextEventStart(DAY, 18 * HOUR, at('2026-12-07T02:00:00Z'))).toBe(at('2026-12-07T18:00:00Z'));
  });

  it('counts periods that do not divide a day from the epoch', () => {
    const every = 7 * 60_000;
    const next = nextEventStart(every, 0, at('2026-12-07T10:30:00Z'));
    expect(next % every).toBe(0);
    expect(next - at('2026-12-07T10:30:00Z')).toBeGreaterThan(0);
    expect(next - at('2026-12-07T10:30:00Z')).toBeLessThanOrEqual(every);
  });
});
