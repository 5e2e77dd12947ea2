/**
 * The first start of a recurring event after `now` (all epoch milliseconds): starts fall `at` past
 * every multiple of `every` since the epoch, so an hourly event starts on the hour and a daily one
 * at the same UTC time each day, whichever process computes it and whenever.
 *
 * @example
 * nextEventStart(3_600_000, 0, Date.parse('2026-12-07T10:30:00Z')) // 2026-12-07T11:00:00Z
 */
export function nextEventStart(every: number, at: number, now: number): number {
  return at + (Math.floor((now - at) / every) + 1) * every;
}
