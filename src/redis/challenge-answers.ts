import type { RedisClient } from '../connections/redis-connection.ts';
import type { MatchStatus } from '../model/records.ts';
import { type ChallengeAnswer, type ChallengeAnswerOutcome, challengerOf } from '../store/match-store.ts';
import { activeSetsOf } from './active-sets.ts';
import { writeBotEvent } from './bot-events.ts';
import { decodeMatch } from './codec.ts';
import { GuardedWrites, type GuardedWritesScript } from './guarded-writes.ts';
import type { StoreKeys } from './keys.ts';

/**
 * Answers a pending challenge once, in one guarded write: accepted, it becomes `queued` (the caller
 * queues it); declined or expired, it ends (off the caps' sets, its origin forgotten) and the
 * challenger hears `challengeDeclined`, or both bots `challengeExpired`, in the same write. A second
 * answer, or one to a match no longer pending, changes nothing.
 */
export async function answerChallenge(
  redis: RedisClient,
  keys: StoreKeys,
  guardedWrites: GuardedWritesScript,
  matchId: string,
  answer: ChallengeAnswer,
  now: number,
): Promise<ChallengeAnswerOutcome> {
  const key = keys.match(matchId);
  for (let attempt = 0; attempt < 100; attempt++) {
    const match = decodeMatch(await redis.hgetall(key));
    if (match === null || match.status !== 'pending') return { answered: false, match };
    const status: MatchStatus =
      answer.kind === 'accept' ? 'queued' : answer.kind === 'decline' ? 'declined' : 'expired';
    const tx = new GuardedWrites().guard(key, 'status', 'pending');
    tx.write('HDEL', key, 'answerBy');
    const ended = status !== 'queued';
    if (ended) {
      tx.write('HSET', key, 'status', status, 'finishedAt', now);
      if (answer.kind === 'decline') tx.write('HSET', key, 'declineReason', answer.reason);
      if (match.origin !== undefined) tx.write('HDEL', key, 'origin');
      for (const set of activeSetsOf(keys, match)) tx.write('ZREM', set, match.id);
    } else {
      tx.write('HSET', key, 'status', status);
    }
    for (const [from, to] of [
      [keys.matches('pending'), keys.matches(status)],
      [keys.botMatches(match.black.id, 'pending'), keys.botMatches(match.black.id, status)],
      [keys.botMatches(match.white.id, 'pending'), keys.botMatches(match.white.id, status)],
    ] as const) {
      tx.write('ZREM', from, match.id).write('ZADD', to, 0, match.id);
    }
    const challenger = challengerOf(match);
    if (answer.kind === 'decline' && challenger !== null) {
      const data = JSON.stringify({ matchId: match.id, reason: answer.reason });
      writeBotEvent(tx, keys, { botId: challenger, type: 'challengeDeclined', data });
    }
    if (answer.kind === 'expire') {
      for (const botId of [match.black.id, match.white.id]) {
        writeBotEvent(tx, keys, {
          botId,
          type: 'challengeExpired',
          data: JSON.stringify({ matchId: match.id }),
        });
      }
    }
    if (await tx.run(guardedWrites)) {
      const { answerBy: _, origin: __, ...rest } = match;
      return {
        answered: true,
        match: {
          ...rest,
          status,
          ...(ended ? { finishedAt: now } : {}),
          ...(answer.kind === 'decline' ? { declineReason: answer.reason } : {}),
        },
      };
    }
  }
  throw new Error(`could not answer the challenge ${matchId}: it keeps changing`);
}
