import type { RedisClient } from '../connections/redis-connection.ts';
import type { MatchRecord } from '../model/records.ts';
import { challengedOf, challengerOf } from '../store/match-store.ts';
import { decodeMatch } from './codec.ts';
import { GuardedWrites, type GuardedWritesScript } from './guarded-writes.ts';
import type { StoreKeys } from './keys.ts';
import { readHashes } from './read.ts';

/**
 * The sets a match is in while pending, queued or running, beside the status sets, which the caps
 * count: a challenge is in its maker's challenges, in those aimed at its opponent, with an origin in
 * those aimed at its opponent from that origin, and with an owner in its owner's challenges; a match
 * the arena made is in each player's arena matches. Written when the match is stored, removed when it ends.
 */
export function activeSetsOf(
  keys: StoreKeys,
  match: Pick<MatchRecord, 'createdBy' | 'black' | 'white' | 'origin' | 'challengerOwner'>,
): string[] {
  const challenger = challengerOf(match);
  // A solo game seats one bot on both sides: it counts among that bot's own games, aimed at nobody.
  const solo = match.black.id === match.white.id;
  if (challenger === null) {
    return solo
      ? [keys.botArenaMatches(match.black.id)]
      : [keys.botArenaMatches(match.black.id), keys.botArenaMatches(match.white.id)];
  }
  if (solo) {
    return [
      keys.botChallenges(challenger),
      ...(match.challengerOwner === undefined ? [] : [keys.ownerChallenges(match.challengerOwner)]),
    ];
  }
  const challenged = challengedOf(match, challenger);
  return [
    keys.botChallenges(challenger),
    keys.botChallengesAgainst(challenged),
    ...(match.origin === undefined ? [] : [keys.botChallengesAgainstFrom(challenged, match.origin)]),
    ...(match.challengerOwner === undefined ? [] : [keys.ownerChallenges(match.challengerOwner)]),
  ];
}

/** Active matches read per batch of the backfill: a short, bounded stop for Redis. */
const BACKFILL_BATCH = 500;

/**
 * Puts every queued or running match into the sets `activeSetsOf` names, where it is missing from
 * one: a match made before a set existed would otherwise never count against its cap, however long
 * it runs. Each match's writes are guarded on it not being over, so one that ends meanwhile (and
 * leaves the sets in its finish) is not put back. Safe beside running matches, from several
 * processes, and again (a no-op once done). Answers how many matches it completed.
 */
export async function backfillActiveSets(
  redis: RedisClient,
  keys: StoreKeys,
  guardedWrites: GuardedWritesScript,
): Promise<number> {
  let completed = 0;
  for (const status of ['pending', 'queued', 'running'] as const) {
    const ids = await redis.zrange(keys.matches(status), 0, -1);
    for (let start = 0; start < ids.length; start += BACKFILL_BATCH) {
      const batch = ids.slice(start, start + BACKFILL_BATCH);
      const matches = (
        await readHashes(
          redis,
          batch.map((id) => keys.match(id)),
        )
      ).map(decodeMatch);
      const missing = await missingFromActiveSets(
        redis,
        keys,
        matches.filter((match): match is MatchRecord => match !== null),
      );
      const written = await Promise.all(
        missing.map((match) => {
          const key = keys.match(match.id);
          const tx = new GuardedWrites()
            .guard(key, 'id', match.id)
            .guardNot(key, 'status', 'finished')
            .guardNot(key, 'status', 'aborted');
          for (const set of activeSetsOf(keys, match)) tx.write('ZADD', set, 0, match.id);
          return tx.run(guardedWrites);
        }),
      );
      completed += written.filter(Boolean).length;
    }
  }
  return completed;
}

/** Those of `matches` that one of their active sets does not hold, in one round trip. */
async function missingFromActiveSets(
  redis: RedisClient,
  keys: StoreKeys,
  matches: readonly MatchRecord[],
): Promise<MatchRecord[]> {
  const pipeline = redis.pipeline();
  const setCounts = matches.map((match) => {
    const sets = activeSetsOf(keys, match);
    for (const set of sets) pipeline.zscore(set, match.id);
    return sets.length;
  });
  const scores = ((await pipeline.exec()) ?? []).map(([error, score]) => {
    if (error) throw error;
    return score;
  });
  let at = 0;
  return matches.filter((_, i) => {
    const held = scores.slice(at, at + setCounts[i]!);
    at += setCounts[i]!;
    return held.some((score) => score === null);
  });
}
