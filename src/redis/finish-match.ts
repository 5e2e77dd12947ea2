import type { RedisClient } from '../connections/redis-connection.ts';
import type { components } from '../contract/index.ts';
import { publicResult } from '../model/faults.ts';
import {
  type FinishPlan,
  type PausePolicy,
  planFinish,
  type StandingBot,
  seatedSides,
} from '../model/finish-plan.ts';
import {
  inSlowPool,
  type MatchRecord,
  type MatchResult,
  type MatchStatus,
  matchEnded,
  type RatingHistoryEntry,
  type RatingRule,
} from '../model/records.ts';
import type { KeyedQueue } from '../support/keyed-queue.ts';
import { activeSetsOf } from './active-sets.ts';
import { writeBotEvent } from './bot-events.ts';
import { decodeBot, decodeMatch, encodeHistoryEntry, encodeRatings, encodeResult } from './codec.ts';
import { GuardedWrites, type GuardedWritesScript } from './guarded-writes.ts';
import type { StoreKeys } from './keys.ts';
import { encodeFinishEvent, MATCH_EVENTS_TTL_SECONDS } from './match-event-codec.ts';
import { ratedTallyField } from './ratings.ts';
import { readHashes } from './read.ts';

export interface FinishRequest {
  readonly matchId: string;
  readonly result: MatchResult;
  readonly now: number;
  /** How ratings move; the match must be rated for it to apply. */
  readonly rate: RatingRule;
  /** When a bot's faults pause it, and for how long. */
  readonly pauses: PausePolicy;
}

/**
 * The bot hash field behind each fact the plan reads: a change to any of them by another writer
 * means planning again. Typed by the plan's input, so a fact the plan starts to read must be
 * guarded here before this compiles.
 */
const GUARDED_BOT_FIELDS: Record<Exclude<keyof StandingBot, 'id'>, string> = {
  rating: 'rating',
  ratedGames: 'ratedGames',
  consecutiveFaults: 'consecutiveFaults',
  status: 'status',
  house: 'house',
  paused: 'pausedUntil',
  guest: 'guest',
};

/**
 * Where a pool keeps its ratings: the arena's pool in `rating`, the leaderboard and the rated tallies
 * (which the Bradley–Terry fit reads); the slow pool apart, so that a slow game never moves a bot's
 * arena rating, nor the other way round.
 */
interface PoolFields {
  readonly rating: string;
  readonly ratedGames: string;
  readonly leaderboard: string;
  readonly leaderboardGames: string;
  readonly history: (botId: string) => string;
  readonly tallies: boolean;
}
function poolFields(keys: StoreKeys, match: MatchRecord): PoolFields {
  return match.pool === 'slow'
    ? {
        rating: 'slowRating',
        ratedGames: 'slowRatedGames',
        leaderboard: keys.slowLeaderboard,
        leaderboardGames: keys.slowLeaderboardGames,
        history: keys.slowRatingHistory,
        tallies: false,
      }
    : {
        rating: 'rating',
        ratedGames: 'ratedGames',
        leaderboard: keys.leaderboard,
        leaderboardGames: keys.leaderboardGames,
        history: keys.ratingHistory,
        tallies: true,
      };
}

/**
 * Ends a match exactly once, in one optimistic transaction: read the match and both bots, plan the
 * finish with the pure planner (src/model/finish-plan.ts), then make every planned write (the
 * result, the status sets, both bots' records and ratings, the leaderboard, the rating histories,
 * the events) in one guarded script that runs only if the match is still as read and the bot
 * fields the plan read are unchanged. When something changed meanwhile (the same match ended
 * elsewhere, or another match of one of the bots ended) it reads and plans again. A call that
 * ioredis resends after a dropped connection finds the match ended by its own first run and
 * writes nothing. Returns false when the match had already ended.
 */
export async function finishMatchOnce(
  redis: RedisClient,
  keys: StoreKeys,
  guardedWrites: GuardedWritesScript,
  request: FinishRequest,
  botFinishes: KeyedQueue,
): Promise<boolean> {
  const { matchId } = request;
  const matchKey = keys.match(matchId);
  const first = await redis.hgetall(matchKey);
  const firstMatch = decodeMatch(first);
  if (firstMatch === null || matchEnded(firstMatch.status)) return false;
  // This process's finishes of one bot's matches run one at a time: side by side, all but one
  // would find the bot changed and plan again (six attempts a finish with 32 matches between two
  // bots). Other processes' finishes still race, and the guards still settle it.
  return botFinishes.run([firstMatch.black.id, firstMatch.white.id], async () => {
    for (let attempt = 1; ; attempt++) {
      if (attempt > 100) throw new Error(`could not finish ${matchId}: its keys keep changing`);
      const matchHash = attempt === 1 ? first : await redis.hgetall(matchKey);
      const match = decodeMatch(matchHash);
      if (match === null || matchEnded(match.status)) return false;
      const ids = [match.black.id, match.white.id];
      const botHashes = await readHashes(
        redis,
        ids.map((id) => keys.bot(id)),
      );
      const pool = poolFields(keys, match);
      // The planner reads a bot's rating: in a slow match, its slow pool rating.
      const [black = null, white = null] = botHashes.map((hash) => {
        const bot = decodeBot(hash);
        return bot !== null && match.pool === 'slow' ? inSlowPool(bot) : bot;
      });
      const plan = planFinish({
        match,
        bots: { black, white },
        result: request.result,
        now: request.now,
        rate: request.rate,
        pauses: request.pauses,
      });

      const tx = new GuardedWrites().guard(matchKey, 'status', matchHash.status);
      for (const [index, id] of ids.entries()) {
        for (const field of [...Object.values(GUARDED_BOT_FIELDS), pool.rating, pool.ratedGames]) {
          tx.guard(keys.bot(id), field, botHashes[index]![field]);
        }
      }
      writePlan(tx, keys, match, plan, pool);
      if (await tx.run(guardedWrites)) return true;
    }
  });
}

/** The writes of a plan, as they are: every decision was the planner's. */
function writePlan(
  tx: GuardedWrites,
  keys: StoreKeys,
  match: MatchRecord,
  plan: FinishPlan<MatchResult>,
  pool: PoolFields,
): void {
  const at = String(plan.finishedAt);
  for (const { botId, tally, rated, consecutiveFaults, pause, faulted } of plan.bots) {
    const bot = keys.bot(botId);
    if (faulted) tx.write('HSET', bot, 'lastFaultMatch', match.id, 'lastFaultAt', at);
    if (tally) {
      tx.write('HSET', bot, 'lastPlayedAt', at);
      tx.write('HINCRBY', bot, 'games', 1);
      tx.write('HINCRBY', bot, tally, 1);
    }
    if (rated) {
      tx.write('HSET', bot, pool.rating, String(rated.rating));
      tx.write('HINCRBY', bot, pool.ratedGames, 1);
      if (rated.onLeaderboard) {
        tx.write('ZADD', pool.leaderboard, -rated.rating, botId);
        tx.write('ZADD', pool.leaderboardGames, rated.ratedGames, botId);
      }
      const entry: RatingHistoryEntry = rated.history;
      tx.write('RPUSH', pool.history(botId), encodeHistoryEntry(entry));
    }
    if (consecutiveFaults !== null) tx.write('HSET', bot, 'consecutiveFaults', String(consecutiveFaults));
    if (pause) {
      tx.write(
        'HSET',
        bot,
        'pausedReason',
        pause.reason,
        'pausedAt',
        String(pause.since),
        'pausedDetail',
        pause.detail,
        'pausedUntil',
        String(pause.until),
        'pauseLevel',
        String(pause.level),
      );
    }
  }
  const { ratedResult } = plan;
  if (ratedResult && pool.tallies) {
    // Counted per pairing and outcome, not listed: the fit then reads O(pairings), not O(results).
    tx.write('HINCRBY', keys.ratedTallies, ratedTallyField(ratedResult), 1);
  }
  tx.write(
    'HSET',
    keys.match(match.id),
    'status',
    plan.status,
    'result',
    encodeResult(plan.result),
    'finishedAt',
    at,
    ...(plan.ratings ? ['ratings', encodeRatings(plan.ratings)] : []),
  );
  // Where a challenge came from is kept only while it counts against the cap (see activeSetsOf).
  if (match.origin !== undefined) tx.write('HDEL', keys.match(match.id), 'origin');
  // A pull turn left open by a worker that died with it (an open turn has no expiry of its own).
  tx.write('DEL', keys.turn(match.id));
  const status: MatchStatus = plan.status;
  for (const [from, to] of [
    [keys.matches(match.status), keys.matches(status)],
    [keys.botMatches(match.black.id, match.status), keys.botMatches(match.black.id, status)],
    [keys.botMatches(match.white.id, match.status), keys.botMatches(match.white.id, status)],
  ] as const) {
    tx.write('ZREM', from, match.id).write('ZADD', to, 0, match.id);
  }
  for (const key of activeSetsOf(keys, match)) tx.write('ZREM', key, match.id);
  // The players hear of the end in the same transaction: exactly one matchFinished each.
  for (const side of seatedSides(match)) {
    const data = JSON.stringify(plan.events[side] satisfies components['schemas']['BotMatchFinishedEvent']);
    writeBotEvent(tx, keys, { botId: match[side].id, type: 'matchFinished', data });
  }
  // Spectators too, with the public view of the result. The stream keeps that event alone: the
  // moves are in the record, and a spectator that had not read them all yet is sent the state
  // afresh (it can tell from `plies`). It then only has to outlive those who might reconnect.
  const finished = encodeFinishEvent({
    status: plan.status,
    result: publicResult(plan.result),
    ratings: plan.ratings,
    finishedAt: plan.finishedAt,
    plies: match.moveCount,
  });
  const events = keys.matchEvents(match.id);
  tx.write('XADD_ALONE', events, 'type', 'finished', 'data', finished);
  tx.write('SPUBLISH', keys.streamAppends, events);
  tx.write('EXPIRE', events, MATCH_EVENTS_TTL_SECONDS);
}
