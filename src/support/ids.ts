import type { RandomBytes } from './clock.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID: 10 characters of millisecond time then 16 of randomness, Crockford base32. Ids made later
 * sort after earlier ones as plain strings, which the store's cursors rely on.
 *
 * @example
 * ulid(Date.now(), randomBytes) // '01JC3S0M0F7ZP4C8W4Y4N0Y8QH'
 */
export function ulid(timeMs: number, random: RandomBytes): string {
  let time = '';
  let t = Math.max(0, Math.floor(timeMs));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = random(16);
  let rest = '';
  for (let i = 0; i < 16; i++) rest += CROCKFORD[(bytes[i] ?? 0) & 31];
  return time + rest;
}

export type IdKind = 'bot' | 'match' | 'tournament' | 'account';

/** Ids carry their kind: `bot_…`, `match_…`, `tournament_…`. */
export function newId(kind: IdKind, timeMs: number, random: RandomBytes): string {
  return `${kind}_${ulid(timeMs, random)}`;
}

/** A ULID in a regular expression's source: 26 characters of Crockford base32 (no I, L, O, U). */
export const ULID_SOURCE = '[0-9A-HJKMNP-TV-Z]{26}';

/** The one definition of what an id looks like; the schemas, the pages and the store use these. */
export const ID_PATTERN = {
  bot: new RegExp(`^bot_${ULID_SOURCE}$`),
  match: new RegExp(`^match_${ULID_SOURCE}$`),
  tournament: new RegExp(`^tournament_${ULID_SOURCE}$`),
  account: new RegExp(`^account_${ULID_SOURCE}$`),
} as const;
