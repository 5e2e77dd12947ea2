import type { Redis } from 'ioredis';
import { publicFaultText, resultAsSeenBy } from '../faults.ts';
import { decodeBot, decodeMatch } from './codec.ts';
import { GuardedWrites, type GuardedWritesScript } from './guarded-writes.ts';
import type { StoreKeys } from './keys.ts';
import { readHashes } from './read.ts';
import type { MatchRatings, MatchResult, MatchStatus, RatingHistoryEntry, RatingRule } from './records.ts';
import { challengerOf } from './store.ts';

export interface FinishRequest {
  readonly matchId: string;
  readonly result: MatchResult;
  readonly now: number;
  /** How ratings move; the match must be rated for it to apply. */
  readonly rate: RatingRule;
  /** A push bot whose matches end by its fault this many times in a row is paused (0: never). */
  readonly pauseAfterFaults: number;
}

const scoreOf = (result: MatchResult, color: 'black' | 'white'): 0 | 0.5 | 1 =>
  result.winner === null ? 0.5 : result.winner === color ? 1 : 0;

/** The bot fields a finish reads: a change to any of them by another writer means reading again. */
const GUARDED_BOT_FIELDS = ['rating', 'ratedGames', 'consecutiveFaults', 'status', 'url', 'pausedReason'];

/** Results that change no rating and count no game: an abort, and a side that never showed up. */
const UNRATED_REASONS = new Set<MatchResult['reason']>(['aborted', 'no-show']);

/**
 * Ends a match exactly once, in one optimistic transaction: read the match and both bots, compute
 * the new ratings with the pure rule, then make every write (the result, the status sets, both
 * bots' records and ratings, the leaderboard, the rating histories, the events) in one guarded
 * script that runs only if the match is still as read and the bot fields read are unchanged. When
 * something changed meanwhile (the same match ended elsewhere, or another match of one of the bots
 * ended) it reads again and retries. A call that ioredis resends after a dropped connection finds
 * the match ended by its own first run and writes nothing. Returns false when the match had
 * already ended.
 */
export async function finishMatchOnce(
  redis: Redis,
  keys: StoreKeys,
  guardedWrites: GuardedWritesScript,
  request: FinishRequest,
): Promise<boolean> {
  const { matchId, result, now } = request;
  const matchKey = keys.match(matchId);
  for (let attempt = 1; ; attempt++) {
    if (attempt > 100) throw new Error(`could not finish ${matchId}: its keys keep changing`);
    const matchHash = await redis.hgetall(matchKey);
    const match = decodeMatch(matchHash);
    if (match === null || match.status === 'finished' || match.status === 'aborted') return false;
    const aborted = result.reason === 'aborted';
    const status: MatchStatus = aborted ? 'aborted' : 'finished';
    const rated = match.rated && !UNRATED_REASONS.has(result.reason);
    const ids = { black: match.black.id, white: match.white.id };
    const botHashes = await readHashes(redis, [keys.bot(ids.black), keys.bot(ids.white)]);
    const [black, white] = botHashes.map(decodeBot);

    const tx = new GuardedWrites().guard(matchKey, 'status', matchHash.status);
    for (const [index, id] of [ids.black, ids.white].entries()) {
      for (const field of GUARDED_BOT_FIELDS) tx.guard(keys.bot(id), field, botHashes[index]![field]);
    }
    let ratings: MatchRatings | null = null;
    if (rated && black && white) {
      const blackScore = scoreOf(result, 'black');
      const next = request.rate(black, white, blackScore);
      ratings = {
        black: { before: black.rating, after: next.black },
        white: { before: white.rating, after: next.white },
      };
      for (const color of ['black', 'white'] as const) {
        const bot = color === 'black' ? black : white;
        const opponent = color === 'black' ? match.white : match.black;
        const score = scoreOf(result, color);
        const after = ratings[color].after;
        tx.write('HSET', keys.bot(bot.id), 'rating', String(after), 'lastPlayedAt', String(now));
        tx.write('HINCRBY', keys.bot(bot.id), 'ratedGames', 1);
        tx.write('HINCRBY', keys.bot(bot.id), 'games', 1);
        tx.write('HINCRBY', keys.bot(bot.id), score === 1 ? 'wins' : score === 0 ? 'losses' : 'draws', 1);
        if (bot.status === 'active') tx.write('ZADD', keys.leaderboard, -after, bot.id);
        const entry: RatingHistoryEntry = { matchId, at: now, opponent, before: bot.rating, after, score };
        tx.write('RPUSH', keys.ratingHistory(bot.id), JSON.stringify(entry));
      }
    }
    if (rated) tx.write('RPUSH', keys.ratedResults, `${ids.black} ${ids.white} ${scoreOf(result, 'black')}`);
    // Fault streaks: a bot's faults in a row pause it for matchmaking; a clean match resets the count.
    if (!aborted) {
      for (const bot of [black, white]) {
        if (!bot) continue;
        const faulted = result.fault?.player === (bot.id === ids.black ? 'black' : 'white');
        if (!faulted) {
          tx.write('HSET', keys.bot(bot.id), 'consecutiveFaults', '0');
          continue;
        }
        const streak = bot.consecutiveFaults + 1;
        tx.write('HSET', keys.bot(bot.id), 'consecutiveFaults', String(streak));
        if (
          request.pauseAfterFaults > 0 &&
          streak >= request.pauseAfterFaults &&
          bot.url !== null &&
          bot.paused === null &&
          result.fault !== undefined
        ) {
          // The reason is public: it names the fault by its generic text; the detail is the owner's.
          const last = publicFaultText(result.fault, result.fault.reason ?? result.reason);
          const reason = `its last ${streak} matches ended by its faults (last: ${last})`;
          tx.write(
            'HSET',
            keys.bot(bot.id),
            'pausedReason',
            reason.slice(0, 300),
            'pausedAt',
            String(now),
            'pausedDetail',
            result.fault.message.slice(0, 500),
          );
        }
      }
    }
    tx.write(
      'HSET',
      matchKey,
      'status',
      status,
      'result',
      JSON.stringify(result),
      'finishedAt',
      String(now),
      ...(ratings ? ['ratings', JSON.stringify(ratings)] : []),
    );
    for (const [all, botKey] of [
      [keys.matches(match.status), keys.matches(status)],
      [keys.botMatches(ids.black, match.status), keys.botMatches(ids.black, status)],
      [keys.botMatches(ids.white, match.status), keys.botMatches(ids.white, status)],
    ] as const) {
      tx.write('ZREM', all, matchId).write('ZADD', botKey, 0, matchId);
    }
    const challenger = challengerOf(match);
    if (challenger !== null) tx.write('ZREM', keys.botChallenges(challenger), matchId);
    // The players hear of the end in the same transaction: exactly one matchFinished each. Only
    // the bot at fault sees its fault in full; its opponent gets the public text.
    for (const color of ['black', 'white'] as const) {
      const seen = resultAsSeenBy(result, { color });
      const event = JSON.stringify({ matchId, status, result: seen });
      tx.write(
        'XADD',
        keys.botEvents(ids[color]),
        'MAXLEN',
        '~',
        1000,
        '*',
        'type',
        'matchFinished',
        'data',
        event,
      );
    }
    if (await tx.run(guardedWrites)) return true;
  }
}
