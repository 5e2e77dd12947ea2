import { luaCommand } from '../connections/lua-command.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import { gameFor } from '../game/index.ts';
import { InvalidCursorError } from '../model/errors.ts';
import type { LiveTurn } from '../model/live-events.ts';
import { NO_PAUSES, type PausePolicy } from '../model/pause.ts';
import {
  MATCH_STATUSES,
  type MatchRecord,
  type MatchResult,
  type MatchStatus,
  type MoveRecord,
  type Page,
  type RatingRule,
} from '../model/records.ts';
import {
  type ChallengeAnswer,
  type ChallengeAnswerOutcome,
  challengedOf,
  challengerOf,
  type MatchQuery,
  type MatchStore,
  type MatchWithRatings,
  type MoveRun,
  type NewMatchesOutcome,
  type NewMatchOptions,
  type NewMatchOutcome,
} from '../store/match-store.ts';
import { BoundedMap } from '../support/bounded-map.ts';
import { KeyedQueue } from '../support/keyed-queue.ts';
import { backfillActiveSets } from './active-sets.ts';
import { writeBotEvent } from './bot-events.ts';
import { answerChallenge } from './challenge-answers.ts';
import { CURSOR_SHAPE, decodeCursor, decodeMatch, decodeRules, encodeCursor } from './codec.ts';
import { finishMatchOnce } from './finish-match.ts';
import { GuardedWrites } from './guarded-writes.ts';
import type { StoreKeys } from './keys.ts';
import { ANNOUNCE_TURN, GUARDED_WRITES, PACK_MOVES, STALE, START_MATCH } from './lua-scripts.ts';
import { encodeTurnEvent } from './match-event-codec.ts';
import type { MoveAppends } from './move-appends.ts';
import { decodeMoves, encodeMove, UnencodableMoveError } from './move-codec.ts';
import { guardPlayersActive, writeNewMatch } from './new-match.ts';
import { activeMatchCounts, arenaMatchCounts } from './ratings.ts';
import { readBots, readHashes } from './read.ts';
import type { ReplicaWait } from './replica-wait.ts';

function invalidCursor(): never {
  throw new InvalidCursorError();
}

/**
 * Runs an optimistic script call until it settles: `attempt` reads what the script's keys depend
 * on and calls it; STALE means that changed before the script ran, so it reads again.
 */
async function _settled(what: string, attempt: () => Promise<number>): Promise<number> {
  for (let attempts = 1; attempts <= 100; attempts++) {
    const outcome = await attempt();
    if (outcome !== STALE) return outcome;
  }
  throw new Error(`could not ${what}: it keeps changing`);
}

/**
 * Matches on Redis (see keys.ts): records, moves (appended through the process' group commit,
 * `MoveAppends`), the caps on active matches, and their ends. Multi-key writes are Lua scripts.
 */
export class RedisMatchStore implements MatchStore {
  private readonly scripts;
  /** This process's match finishes, one at a time per bot (see finishMatchOnce). */
  private readonly botFinishes = new KeyedQueue();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
    private readonly moveAppends: MoveAppends,
    /** Where a committed result waits for replicas (Sentinel); none on one server. */
    private readonly replicaWait?: ReplicaWait,
  ) {
    this.scripts = {
      startMatch: luaCommand<MatchStatus | null>(redis, START_MATCH, 7),
      guardedWrites: luaCommand(redis, GUARDED_WRITES, undefined),
      packMoves: luaCommand(redis, PACK_MOVES, 1),
      announceTurn: luaCommand(redis, ANNOUNCE_TURN, 2),
    };
  }

  async createMatch(match: MatchRecord, options: NewMatchOptions = {}): Promise<NewMatchOutcome> {
    const k = this.keys;
    // Guarded on the match not existing: a call the client resends after a dropped connection
    // must not reset a match a worker has started meanwhile. Ids are unique, so a failed first
    // guard only ever means that resend, and the match exists.
    const tx = new GuardedWrites().guard(k.match(match.id), 'id', undefined);
    // And on its bots: one retired since the caller checked it gets no new match.
    const players = guardPlayersActive(tx, k, [match.black.id, match.white.id]);
    const challenger = challengerOf(match);
    // Which cap each guard after the players' stands for, in order: the first that fails answers.
    const caps: NewMatchOutcome[] = [];
    if (challenger !== null) {
      const challenged = challengedOf(match, challenger);
      if (options.maxActiveChallenges !== undefined) {
        tx.guardFewer(k.botChallenges(challenger), options.maxActiveChallenges);
        caps.push('too-many-active');
      }
      if (options.maxChallengesAgainst !== undefined) {
        tx.guardFewer(k.botChallengesAgainst(challenged), options.maxChallengesAgainst);
        caps.push('opponent-busy');
      }
      if (options.maxChallengesAgainstFromOrigin !== undefined && match.origin !== undefined) {
        tx.guardFewer(
          k.botChallengesAgainstFrom(challenged, match.origin),
          options.maxChallengesAgainstFromOrigin,
        );
        caps.push('opponent-busy-from-origin');
      }
      if (options.maxChallengesByOwner !== undefined && match.challengerOwner !== undefined) {
        tx.guardFewer(k.ownerChallenges(match.challengerOwner), options.maxChallengesByOwner);
        caps.push('owner-busy');
      }
    }
    // Into the sets the caps count, with the rest of its indexes.
    writeNewMatch(tx, k, match);
    if (options.announce !== undefined) writeBotEvent(tx, k, options.announce);
    const failed = await tx.attempt(this.scripts.guardedWrites);
    if (failed === null || failed === 0) return 'created';
    if (failed <= players) return 'bot-retired';
    return caps[failed - players - 1]!;
  }

  async createMatches(
    matches: readonly MatchRecord[],
    colorBalance: ReadonlyMap<string, number>,
  ): Promise<NewMatchesOutcome> {
    const k = this.keys;
    const tx = new GuardedWrites();
    for (const match of matches) tx.guard(k.match(match.id), 'id', undefined);
    guardPlayersActive(
      tx,
      k,
      matches.flatMap((match) => [match.black.id, match.white.id]),
    );
    for (const match of matches) writeNewMatch(tx, k, match);
    for (const [id, change] of colorBalance)
      if (change !== 0) tx.write('HINCRBY', k.colorBalance, id, change);
    const failed = await tx.attempt(this.scripts.guardedWrites);
    return failed === null ? 'created' : failed < matches.length ? 'exists' : 'bot-retired';
  }

  answerChallenge(id: string, answer: ChallengeAnswer, now: number): Promise<ChallengeAnswerOutcome> {
    return answerChallenge(this.redis, this.keys, this.scripts.guardedWrites, id, answer, now);
  }

  async getMatch(id: string): Promise<MatchRecord | null> {
    return decodeMatch(await this.redis.hgetall(this.keys.match(id)));
  }

  /**
   * A match's moves in full: stored packed (see move-codec.ts), replayed with the match's game and
   * rules for their players and flips, both read in one round trip. Moves still in the old form (a
   * list of JSON moves) are read as they are and packed on the way, once (see PACK_MOVES).
   */
  async getMoves(id: string): Promise<MoveRecord[]> {
    const k = this.keys;
    const [[, fields], [packedError, packed]] = (await this.redis
      .pipeline()
      .hmget(k.match(id), 'game', 'rules')
      .getBuffer(k.moves(id))
      .exec()) as [[Error | null, (string | null)[]], [Error | null, Buffer | null]];
    if (packedError !== null) {
      if (!/WRONGTYPE/.test(packedError.message)) throw packedError;
      const listed = (await this.redis.lrange(k.moves(id), 0, -1)).map(
        (move) => JSON.parse(move) as MoveRecord,
      );
      let packed: Buffer;
      try {
        packed = Buffer.concat(listed.map(encodeMove));
      } catch (error) {
        // A move the compact form cannot hold (say, a fractional latency) is served as stored,
        // and the list left as it is, rather than the whole match failing to read.
        if (error instanceof UnencodableMoveError) return listed;
        throw error;
      }
      await this.scripts.packMoves(k.moves(id), listed.length, packed);
      return listed;
    }
    if (packed === null || packed.length === 0) return [];
    const [gameId, rules] = fields ?? [];
    const game = gameFor(gameId ?? undefined);
    return decodeMoves(packed, game, game.options(rules ? decodeRules(rules) : undefined));
  }

  /** Each match's players as read by getMatchWithRatings, the oldest forgotten first past 10,000. */
  private readonly playersOf = new BoundedMap<string, readonly [black: string, white: string]>(10_000);

  async getMatchWithRatings(id: string): Promise<MatchWithRatings | null> {
    const players = this.playersOf.get(id);
    if (players === undefined) {
      const [match, moves] = await Promise.all([this.getMatch(id), this.getMoves(id)]);
      if (match === null) return null;
      this.playersOf.set(id, [match.black.id, match.white.id]);
      const [black, white] = await readBots(this.redis, this.keys, [match.black.id, match.white.id]);
      return { match, moves, ratings: { black: black?.rating ?? null, white: white?.rating ?? null } };
    }
    const k = this.keys;
    const [[matchError, hash], [movesError, packed], [blackError, black], [whiteError, white]] =
      (await this.redis
        .pipeline()
        .hgetall(k.match(id))
        .getBuffer(k.moves(id))
        .hget(k.bot(players[0]), 'rating')
        .hget(k.bot(players[1]), 'rating')
        .exec()) as [
        [Error | null, Record<string, string>],
        [Error | null, Buffer | null],
        [Error | null, string | null],
        [Error | null, string | null],
      ];
    const error = matchError ?? blackError ?? whiteError;
    if (error !== null) throw error;
    const match = decodeMatch(hash);
    if (match === null) {
      this.playersOf.delete(id);
      return null;
    }
    const game = gameFor(match.game);
    const moves =
      movesError !== null // moves still in the old form: getMoves reads and packs them
        ? await this.getMoves(id)
        : packed === null || packed.length === 0
          ? []
          : decodeMoves(packed, game, game.options(match.rules));
    const rating = (value: string | null) => (value === null ? null : Number(value));
    return { match, moves, ratings: { black: rating(black), white: rating(white) } };
  }

  async listMatches(query: MatchQuery): Promise<Page<MatchRecord>> {
    const k = this.keys;
    const max =
      query.cursor === undefined
        ? '+'
        : `(${decodeCursor(query.cursor, CURSOR_SHAPE.matchId) ?? invalidCursor()}`;
    // Without a status, the newest of every status set, merged (ids sort by creation); read in one
    // MULTI, so a match moving between sets meanwhile is seen once, in one of them.
    const statuses = query.status ? [query.status] : MATCH_STATUSES;
    const read = this.redis.multi();
    for (const status of statuses) {
      const key = query.botId ? k.botMatches(query.botId, status) : k.matches(status);
      read.zrevrangebylex(key, max, '-', 'LIMIT', 0, query.limit + 1);
    }
    const ids = ((await read.exec()) ?? [])
      .flatMap(([error, found]) => {
        if (error) throw error;
        return found as string[];
      })
      .sort((x, y) => (x < y ? 1 : x > y ? -1 : 0))
      .slice(0, query.limit + 1);
    const page = ids.slice(0, query.limit);
    const items = (
      await readHashes(
        this.redis,
        page.map((id) => k.match(id)),
      )
    )
      .map(decodeMatch)
      .filter((match): match is MatchRecord => match !== null);
    const last = page.at(-1);
    return { items, nextCursor: ids.length > query.limit && last !== undefined ? encodeCursor(last) : null };
  }

  async startMatch(id: string, now: number): Promise<MatchRecord | null> {
    const match = await this.getMatch(id);
    if (match === null) return null;
    const k = this.keys;
    const pairs = [
      k.matches,
      (s: MatchStatus) => k.botMatches(match.black.id, s),
      (s: MatchStatus) => k.botMatches(match.white.id, s),
    ];
    const statusKeys = pairs.flatMap((key) => [key('queued'), key('running')]);
    const before = (await this.scripts.startMatch(
      k.match(id),
      ...statusKeys,
      id,
      now,
    )) as unknown as MatchStatus | null;
    // The script tells what it changed; only a match that ended meanwhile needs reading again.
    if (before === 'queued') return { ...match, status: 'running', startedAt: now };
    if (before === 'running') return match;
    return this.getMatch(id);
  }

  async appendMove(id: string, move: MoveRecord, run: MoveRun, next?: LiveTurn): Promise<boolean> {
    return (await this.moveAppends.append({ id, move, run, next })) === 1;
  }

  async announceTurn(id: string, turn: LiveTurn): Promise<void> {
    await this.scripts.announceTurn(
      this.keys.match(id),
      this.keys.matchEvents(id),
      encodeTurnEvent(turn),
      this.keys.streamAppends,
    );
  }

  async finishMatch(
    id: string,
    result: MatchResult,
    now: number,
    rate: RatingRule,
    pauses: PausePolicy = NO_PAUSES,
  ): Promise<boolean> {
    const finished = await finishMatchOnce(
      this.redis,
      this.keys,
      this.scripts.guardedWrites,
      {
        matchId: id,
        result,
        now,
        rate,
        pauses,
      },
      this.botFinishes,
    );
    // Where there are replicas, the worker moves on (the next round, the next match) only once one
    // holds the result. Its events went out with the commit, a moment before: see README "Sentinel".
    if (finished) await this.replicaWait?.afterCommit();
    return finished;
  }

  matchIdsInStatus(status: MatchStatus, limit: number): Promise<string[]> {
    return this.redis.zrangebylex(this.keys.matches(status), '-', '+', 'LIMIT', 0, limit);
  }

  activeMatchCounts(ids: readonly string[]): Promise<number[]> {
    return activeMatchCounts(this.redis, this.keys, ids);
  }

  arenaMatchCounts(ids: readonly string[]): Promise<number[]> {
    return arenaMatchCounts(this.redis, this.keys, ids);
  }

  /**
   * Puts queued and running matches made before a cap's set existed into it (see
   * `backfillActiveSets`); a no-op once done. The API runs it at start.
   */
  backfillActiveSets(): Promise<number> {
    return backfillActiveSets(this.redis, this.keys, this.scripts.guardedWrites);
  }
}
