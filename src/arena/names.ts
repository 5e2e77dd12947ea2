import { HOUSE_NAME_PREFIX, isHouseName } from '../house/roster.ts';
import { InvalidRequestError } from '../model/errors.ts';
import { ID_PATTERN } from '../support/ids.ts';
import { GUEST_NAME_PREFIX, isGuestName } from './guests.ts';

/**
 * Names starting `house-` are the house bots' own, `guest-` the guests': nobody can pass for one.
 * Nor may a name look like an id: a challenge names a bot by either, and an id is taken for an id.
 */
export function checkName(name: string): void {
  if (Object.values(ID_PATTERN).some((pattern) => pattern.test(name))) {
    throw new InvalidRequestError('bots/name-reserved', 'A bot name may not have the form of an id.', [
      { path: 'body.name', message: 'must not look like an id (bot_…, match_…)' },
    ]);
  }
  if (isHouseName(name)) {
    throw new InvalidRequestError(
      'bots/name-reserved',
      `Names starting with "${HOUSE_NAME_PREFIX}" are reserved for the arena's house bots.`,
      [{ path: 'body.name', message: `must not start with "${HOUSE_NAME_PREFIX}"` }],
    );
  }
  if (isGuestName(name)) {
    throw new InvalidRequestError(
      'bots/name-reserved',
      `Names starting with "${GUEST_NAME_PREFIX}" are reserved for guests (POST /v1/guests).`,
      [{ path: 'body.name', message: `must not start with "${GUEST_NAME_PREFIX}"` }],
    );
  }
}
