/**
 * How long matchmaking pauses a bot for its faults: a back-off that grows with each pause that
 * follows soon after the last, so that a bot that keeps faulting is paired less and less often.
 * Only time lifts a pause (or the admin): an edit to the bot does not, or a bot could fault on
 * purpose and send a PATCH to be paired again at once. Pure.
 */

/** The back-off: the first pause lasts `firstMs`; each further one `factor` times the one before, up to `maxMs`. */
export interface PauseBackoff {
  readonly firstMs: number;
  readonly maxMs: number;
  /** Default 4: 5 min, 20 min, 80 min, 5 h 20 min, … for a first pause of 5 min. */
  readonly factor?: number;
}

/** A bot whose matches end by its fault `afterFaults` times in a row (0: never) is paused, for a term that grows. */
export interface PausePolicy {
  readonly afterFaults: number;
  readonly backoff: PauseBackoff;
}

/** Never pause: for matches whose faults should stop nobody (and tests of other things). */
export const NO_PAUSES: PausePolicy = { afterFaults: 0, backoff: { firstMs: 0, maxMs: 0 } };

/** What a pause is, as far as its length and its end go. */
export interface PauseTerm {
  readonly since: number;
  readonly until: number;
  /** 1 for a first pause; one more for each pause that began within `maxMs` of the last one's end. */
  readonly level: number;
}

const DEFAULT_FACTOR = 4;

/**
 * Whether a pause holds at `now`: from its start until its `until` (excluded).
 *
 * @example
 * isPausedAt({ since: 0, until: 300_000, level: 1 }, 299_999); // true
 * isPausedAt({ since: 0, until: 300_000, level: 1 }, 300_000); // false
 * isPausedAt(null, 0); // false
 */
export function isPausedAt(pause: Pick<PauseTerm, 'until'> | null, now: number): boolean {
  return pause !== null && now < pause.until;
}

/**
 * The term of a pause that starts `now`, given the bot's last pause (or `null`). A pause that
 * starts within `maxMs` of the last one's end is one level longer; after a longer quiet time the
 * back-off starts over.
 *
 * @example
 * const backoff = { firstMs: 300_000, maxMs: 86_400_000 };
 * nextPause(null, 0, backoff); // { since: 0, until: 300_000, level: 1 }
 * nextPause({ since: 0, until: 300_000, level: 1 }, 400_000, backoff); // level 2, 20 minutes
 */
export function nextPause(last: PauseTerm | null, now: number, backoff: PauseBackoff): PauseTerm {
  const recent = last !== null && now - last.until < backoff.maxMs;
  const level = recent ? last.level + 1 : 1;
  const factor = backoff.factor ?? DEFAULT_FACTOR;
  // Capped before it is multiplied out, so a high level never overflows to Infinity.
  const lengthMs = Math.min(backoff.maxMs, backoff.firstMs * factor ** Math.min(level - 1, 64));
  return { since: now, until: now + lengthMs, level };
}
