import type { MatchRecord } from '../model/records.ts';
import { activeSetsOf } from './active-sets.ts';
import { matchFields } from './codec.ts';
import type { GuardedWrites } from './guarded-writes.ts';
import type { StoreKeys } from './keys.ts';

/**
 * The writes that store a new match: its hash, its place in the status sets (all matches', and
 * each player's) and in the sets it is in while active (see `activeSetsOf`). One definition for
 * every path that creates matches (`createMatch`, a tournament's round), so a match is indexed
 * alike however it was made. Indexed by status only: the list of all matches merges the status
 * sets, where a set of all would hold every finished match a second time.
 *
 * @example
 * const tx = new GuardedWrites().guard(keys.match(match.id), 'id', undefined);
 * writeNewMatch(tx, keys, match);
 */
export function writeNewMatch(tx: GuardedWrites, keys: StoreKeys, match: MatchRecord): void {
  tx.write('HSET', keys.match(match.id), ...Object.entries(matchFields(match)).flat());
  for (const key of [
    keys.matches(match.status),
    keys.botMatches(match.black.id, match.status),
    keys.botMatches(match.white.id, match.status),
  ]) {
    tx.write('ZADD', key, 0, match.id);
  }
  for (const key of activeSetsOf(keys, match)) tx.write('ZADD', key, 0, match.id);
}

/**
 * Guards that none of `botIds` is retired: a bot that retires after the caller read it active gets
 * no new match. Answers how many guards it added (one per distinct bot), each a failed index of its
 * own after those added before.
 */
export function guardPlayersActive(tx: GuardedWrites, keys: StoreKeys, botIds: readonly string[]): number {
  const distinct = new Set(botIds);
  for (const id of distinct) tx.guardNot(keys.bot(id), 'status', 'retired');
  return distinct.size;
}
