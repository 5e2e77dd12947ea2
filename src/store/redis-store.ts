import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import type { Redis } from 'ioredis';
import { BoundedMap } from '../bounded-map.ts';
import type { RandomBytes } from '../clock.ts';
import { ConflictError, InvalidCursorError } from '../errors.ts';
import { gameFor } from '../game/index.ts';
import { isPausedAt, NO_PAUSES, type PausePolicy } from '../standings/pause.ts';
import { backfillActiveSets, challengedOf } from './active-sets.ts';
import { writeBotEvent } from './bot-events.ts';
import { answerChallenge, type ChallengeAnswer, type ChallengeAnswerOutcome } from './challenge-answers.ts';
import {
  CURSOR_SHAPE,
  decodeBot,
  decodeCursor,
  decodeMatch,
  decodeRules,
  encodeCursor,
  HISTORY_FIELDS,
  historyEntryOf,
  historyFieldsOf,
  isJsonHistoryItem,
  newBotFields,
} from './codec.ts';
import { finishMatchOnce } from './finish-match.ts';
import { GuardedWrites } from './guarded-writes.ts';
import { idOfNameMember, nameMember, type StoreKeys, storeKeys } from './keys.ts';
import { luaCommand } from './lua-command.ts';
import {
  ANNOUNCE_TURN,
  APPEND_MOVES,
  CREATE_BOT,
  GUARDED_WRITES,
  PACK_MOVES,
  RELEASE_LOCK,
  REPLACE_SECRETS,
  RETIRE_BOT,
  STALE,
  START_MATCH,
  UPDATE_BOT,
} from './lua-scripts.ts';
import { encodeMoveEvent, encodeTurnEvent, type LiveTurn } from './match-events.ts';
import { decodeMoves, encodeMove, UnencodableMoveError } from './move-codec.ts';
import { guardPlayersActive, writeNewMatch } from './new-match.ts';
import {
  activeBots,
  activeMatchCounts,
  arenaMatchCounts,
  backfillLeaderboardGames,
  colorBalances,
  leaderboardPage,
  leaderboardSplitPage,
  ratedTallies,
  saveStrengths,
} from './ratings.ts';
import { readBots, readHashes, readHashFields } from './read.ts';
import type {
  BotChanges,
  BotRecord,
  MatchRecord,
  MatchResult,
  MatchStatus,
  MoveRecord,
  NewBot,
  Page,
  RatingHistoryEntry,
  RatingRule,
  Strength,
} from './records.ts';
import { MATCH_STATUSES } from './records.ts';
import {
  type ArenaStore,
  type BotQuery,
  challengerOf,
  type LeaderboardSplitQuery,
  type MatchQuery,
  type MatchWithRatings,
  type MoveRun,
  type NewMatchesOutcome,
  type NewMatchOptions,
  type NewMatchOutcome,
  type StoreHealth,
} from './store.ts';

interface AppendedMove {
  readonly id: string;
  readonly move: MoveRecord;
  readonly run: MoveRun;
  /** The turn after the move, told to spectators with it. */
  readonly next: LiveTurn | undefined;
}

function invalidCursor(): never {
  throw new InvalidCursorError();
}

/**
 * Runs an optimistic script call until it settles: `attempt` reads what the script's keys depend
 * on and calls it; STALE means that changed before the script ran, so it reads again.
 */
async function settled(what: string, attempt: () => Promise<number>): Promise<number> {
  for (let attempts = 1; attempts <= 100; attempts++) {
    const outcome = await attempt();
    if (outcome !== STALE) return outcome;
  }
  throw new Error(`could not ${what}: it keeps changing`);
}

/**
 * The arena's store on Redis. Keys live under `prefix` (see keys.ts); multi-key writes are Lua
 * scripts (or MULTI where sending twice is harmless).
 *
 * @example
 * const store = new RedisStore(redis, 'arena');
 * await store.getBot('bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH');
 */
export class RedisStore implements ArenaStore {
  readonly keys: StoreKeys;
  private readonly scripts;

  constructor(
    readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = storeKeys(prefix);
    this.scripts = {
      createBot: luaCommand(redis, CREATE_BOT, undefined),
      updateBot: luaCommand(redis, UPDATE_BOT, 5),
      replaceSecrets: luaCommand(redis, REPLACE_SECRETS, 3),
      releaseLock: luaCommand(redis, RELEASE_LOCK, 1),
      retireBot: luaCommand(redis, RETIRE_BOT, undefined),
      startMatch: luaCommand<MatchStatus | null>(redis, START_MATCH, 7),
      appendMoves: luaCommand<number[]>(redis, APPEND_MOVES, undefined),
      guardedWrites: luaCommand(redis, GUARDED_WRITES, undefined),
      packMoves: luaCommand(redis, PACK_MOVES, 1),
      announceTurn: luaCommand(redis, ANNOUNCE_TURN, 2),
    };
    this.moveAppends = new DataLoader<AppendedMove, number>(
      (appends) => {
        // Keys first, then five arguments per move and the appends channel, in one array: this runs
        // for every move.
        const count = appends.length;
        const args: (string | number | Buffer)[] = new Array(2 + count * 8);
        args[0] = count * 3;
        for (let i = 0; i < count; i++) {
          const { id, move, run, next } = appends[i]!;
          args[1 + i * 3] = this.keys.moves(id);
          args[2 + i * 3] = this.keys.match(id);
          args[3 + i * 3] = this.keys.matchEvents(id);
          const a = 1 + count * 3 + i * 5;
          args[a] = move.ply;
          args[a + 1] = encodeMove(move);
          args[a + 2] = run.id;
          args[a + 3] = run.follows ? '1' : '0';
          args[a + 4] = next === undefined ? '' : encodeMoveEvent(move, next);
        }
        args[1 + count * 8] = this.keys.streamAppends;
        const written = this.scripts.appendMoves(...args);
        this.appendsInFlight = written.catch(() => {});
        return written;
      },
      // No batch size cap: a run waits once it has 4 plies unconfirmed, so a batch holds at most 4
      // per match this process plays, and a new batch only opens once the last one was sent.
      { cache: false, batchScheduleFn: (flush) => void this.appendsInFlight.then(() => setImmediate(flush)) },
    );
  }

  /**
   * Moves appended by any of the matches this process plays are written together, one script
   * call at a time (a group commit): a batch goes once the one before it is answered and the
   * event loop has run its pending I/O callbacks, so under load each write carries many moves.
   * Writes and replies per move were most of the arena's own cost per move. Each move still gets
   * its own answer; a batch that fails (Redis errors) fails every move in it, and their runs throw
   * for the queue to retry.
   */
  private readonly moveAppends: DataLoader<AppendedMove, number>;
  private appendsInFlight: Promise<unknown> = Promise.resolve();

  /** Waits for the moves already sent; the store has no connection of its own to close. */
  async close(): Promise<void> {
    await this.appendsInFlight;
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  health(): StoreHealth {
    return this.redis.status === 'ready' ? 'up' : 'down';
  }

  async createBot(bot: NewBot, options: { readonly maxOwnedBots?: number } = {}): Promise<void> {
    const k = this.keys;
    const owned =
      bot.owner === undefined
        ? []
        : [k.accountBots(bot.owner.id), k.accountActiveBots(bot.owner.id), k.account(bot.owner.id)];
    const created = await this.scripts.createBot(
      8 + owned.length,
      k.bot(bot.id),
      k.botName(bot.name),
      k.token(bot.tokenHash),
      k.botsByName,
      k.activeBotsByName,
      k.leaderboard,
      k.leaderboardGames,
      k.guests,
      ...owned,
      bot.id,
      nameMember(bot.name, bot.id),
      -bot.rating,
      bot.guest ? bot.createdAt : '',
      options.maxOwnedBots ?? Number.MAX_SAFE_INTEGER,
      bot.createdAt,
      ...newBotFields(bot),
    );
    if (created === -1) {
      throw new ConflictError(
        'accounts/too-many-bots',
        `An account may have at most ${options.maxOwnedBots} active bots; retire one first.`,
      );
    }
    if (created === -2)
      throw new ConflictError('accounts/closed', 'The account is closed: it registers no bots.');
    if (created !== 1) throw new ConflictError('bots/name-taken', `The name ${bot.name} is taken.`);
  }

  async getBot(id: string): Promise<BotRecord | null> {
    return decodeBot(await this.redis.hgetall(this.keys.bot(id)));
  }

  getBots(ids: readonly string[]): Promise<(BotRecord | null)[]> {
    return readBots(this.redis, this.keys, ids);
  }

  async findBotIdByTokenHash(tokenHash: string): Promise<string | null> {
    return this.redis.get(this.keys.token(tokenHash));
  }

  async updateBot(id: string, changes: BotChanges): Promise<BotRecord | null> {
    const fields: string[] = [];
    const set = (field: string, value: string | null | undefined) => {
      if (value !== undefined) fields.push(field, value ?? '\0');
    };
    set('description', changes.description);
    set('url', changes.url);
    set('webhookSecret', changes.webhookSecret);
    // The defaults are stored as no field (see newBotFields); a flag of the old form goes either way.
    if (changes.challenges !== undefined) {
      set('challenges', changes.challenges === 'accept' ? null : changes.challenges);
      set('acceptsChallenges', null);
    }
    if (changes.ratedPlay !== undefined) set('ratedPlay', changes.ratedPlay ? null : '0');
    const k = this.keys;
    // The name keys depend on the name, read first; the script checks it still holds (see settled).
    const outcome = await settled(`update ${id}`, async () => {
      const name = await this.redis.hget(k.bot(id), 'name');
      if (name === null) return 0;
      const newName = changes.name ?? name;
      return this.scripts.updateBot(
        k.bot(id),
        k.botsByName,
        k.activeBotsByName,
        k.botName(name),
        k.botName(newName),
        name,
        changes.name ?? '',
        nameMember(name, id),
        nameMember(newName, id),
        id,
        ...fields,
      );
    });
    if (outcome === 0) return null;
    if (outcome === -1) throw new ConflictError('bots/name-taken', `The name ${changes.name} is taken.`);
    return this.getBot(id);
  }

  async endPause(id: string, at: number): Promise<BotRecord | null> {
    const key = this.keys.bot(id);
    for (;;) {
      const bot = await this.getBot(id);
      if (bot === null || !isPausedAt(bot.paused, at)) return bot;
      // Guarded on the term read: a finish that paused the bot again meanwhile is not undone.
      const tx = new GuardedWrites()
        .guard(key, 'pausedUntil', String(bot.paused!.until))
        .write('HSET', key, 'pausedUntil', at);
      if (await tx.run(this.scripts.guardedWrites)) return this.getBot(id);
    }
  }

  async replaceSecrets(
    id: string,
    tokenHash: string,
    webhookSecret: string | null,
  ): Promise<'replaced' | 'not-found' | 'retired'> {
    const k = this.keys;
    // The old token's key depends on its hash, read first; the script checks it still holds.
    const outcome = await settled(`replace the secrets of ${id}`, async () => {
      const old = await this.redis.hget(k.bot(id), 'tokenHash');
      if (old === null) return 0;
      return this.scripts.replaceSecrets(
        k.bot(id),
        k.token(old),
        k.token(tokenHash),
        old,
        id,
        tokenHash,
        webhookSecret ?? '',
      );
    });
    return outcome === 1 ? 'replaced' : outcome === -1 ? 'retired' : 'not-found';
  }

  async retireBot(id: string): Promise<void> {
    const k = this.keys;
    // Its token's key and by-name member depend on what it holds, read first; the script checks.
    await settled(`retire ${id}`, async () => {
      const [name, tokenHash, owner] = await this.redis.hmget(k.bot(id), 'name', 'tokenHash', 'owner');
      if (name === null || name === undefined) return 0;
      // A bot's owner never changes: its key needs no check in the script.
      const owned = owner ? [k.accountActiveBots(owner)] : [];
      return this.scripts.retireBot(
        6 + owned.length,
        k.bot(id),
        k.activeBotsByName,
        k.leaderboard,
        k.token(tokenHash ?? ''),
        k.leaderboardGames,
        k.guests,
        ...owned,
        name,
        tokenHash ?? '',
        nameMember(name, id),
        id,
      );
    });
  }

  async listBots(query: BotQuery): Promise<Page<BotRecord>> {
    const key = query.includeRetired ? this.keys.botsByName : this.keys.activeBotsByName;
    const prefix = (query.namePrefix ?? '').toLowerCase();
    let min = `[${prefix}`;
    if (query.cursor !== undefined) {
      const after = decodeCursor(query.cursor, CURSOR_SHAPE.botName) ?? invalidCursor();
      if (after > min.slice(1)) min = `(${after}`;
    }
    // '\xff' sorts after every character a name may hold.
    const members = await this.redis.zrangebylex(key, min, `[${prefix}\xff`, 'LIMIT', 0, query.limit + 1);
    const page = members.slice(0, query.limit);
    const bots = await this.getBots(page.map(idOfNameMember));
    const last = page.at(-1);
    return {
      items: bots.filter((bot): bot is BotRecord => bot !== null),
      nextCursor: members.length > query.limit && last !== undefined ? encodeCursor(last) : null,
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
      const [black, white] = await this.getBots([match.black.id, match.white.id]);
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
    return (await this.moveAppends.load({ id, move, run, next })) === 1;
  }

  async announceTurn(id: string, turn: LiveTurn): Promise<void> {
    await this.scripts.announceTurn(
      this.keys.match(id),
      this.keys.matchEvents(id),
      encodeTurnEvent(turn),
      this.keys.streamAppends,
    );
  }

  finishMatch(
    id: string,
    result: MatchResult,
    now: number,
    rate: RatingRule,
    pauses: PausePolicy = NO_PAUSES,
  ): Promise<boolean> {
    return finishMatchOnce(this.redis, this.keys, this.scripts.guardedWrites, {
      matchId: id,
      result,
      now,
      rate,
      pauses,
    });
  }

  matchIdsInStatus(status: MatchStatus, limit: number): Promise<string[]> {
    return this.redis.zrangebylex(this.keys.matches(status), '-', '+', 'LIMIT', 0, limit);
  }

  async ratingHistory(botId: string, limit?: number): Promise<RatingHistoryEntry[]> {
    const entries = await this.redis.lrange(
      this.keys.ratingHistory(botId),
      limit === undefined ? 0 : -limit,
      -1,
    );
    // Items are match ids (the entry is the match's record), or the JSON of an entry written before.
    const matches = (
      await readHashFields(
        this.redis,
        entries.filter((item) => !isJsonHistoryItem(item)).map((id) => this.keys.match(id)),
        HISTORY_FIELDS,
      )
    ).map(historyFieldsOf);
    let next = 0;
    return entries.flatMap((item) => {
      if (isJsonHistoryItem(item)) return [JSON.parse(item) as RatingHistoryEntry];
      const entry = historyEntryOf(matches[next++] ?? null, botId);
      return entry === null ? [] : [entry];
    });
  }

  leaderboard(offset: number, limit: number) {
    return leaderboardPage(this.redis, this.keys, offset, limit);
  }

  leaderboardSplit(query: LeaderboardSplitQuery) {
    return leaderboardSplitPage(this.redis, this.keys, query);
  }

  /**
   * Counts the rated games of the leaderboard's bots listed before the store kept them apart (see
   * `keys.leaderboardGames`); a no-op once done. The API runs it at start.
   */
  backfillLeaderboardGames(): Promise<number> {
    return backfillLeaderboardGames(this.redis, this.keys);
  }

  /**
   * Puts queued and running matches made before a cap's set existed into it (see
   * `backfillActiveSets`); a no-op once done. The API runs it at start.
   */
  backfillActiveSets(): Promise<number> {
    return backfillActiveSets(this.redis, this.keys, this.scripts.guardedWrites);
  }

  /**
   * The deployment's key of the client-origin HMAC: made once, by whichever process asks first,
   * and the same for every process after (so that one address is one origin whoever hashes it).
   */
  async clientOriginKey(random: RandomBytes): Promise<string> {
    await this.redis.set(this.keys.clientOriginKey, Buffer.from(random(32)).toString('base64url'), 'NX');
    const key = await this.redis.get(this.keys.clientOriginKey);
    if (key === null) throw new Error('the client-origin key vanished as it was made');
    return key;
  }

  guestsIdleSince(cutoff: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.guests, '-inf', cutoff, 'LIMIT', 0, limit);
  }

  async retireGuest(id: string): Promise<void> {
    await this.retireBot(id);
    await this.redis.del(this.keys.botEvents(id));
  }

  async touchGuest(id: string, at: number): Promise<void> {
    // XX: a guest retired meanwhile (and so off the set) stays off it; GT: time only moves on.
    await this.redis.zadd(this.keys.guests, 'XX', 'GT', at, id);
  }

  ratedTallies() {
    return ratedTallies(this.redis, this.keys);
  }

  saveStrengths(strengths: ReadonlyMap<string, Strength>, computedAt: number): Promise<void> {
    return saveStrengths(this.redis, this.keys, strengths, computedAt);
  }

  colorBalances(ids: readonly string[]): Promise<number[]> {
    return colorBalances(this.redis, this.keys, ids);
  }

  async tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    const key = this.keys.lock(name);
    const holder = randomUUID();
    if ((await this.redis.set(key, holder, 'PX', ttlMs, 'NX')) !== 'OK') return null;
    return async () => {
      await this.scripts.releaseLock(key, holder);
    };
  }

  activeMatchCounts(ids: readonly string[]): Promise<number[]> {
    return activeMatchCounts(this.redis, this.keys, ids);
  }

  arenaMatchCounts(ids: readonly string[]): Promise<number[]> {
    return arenaMatchCounts(this.redis, this.keys, ids);
  }

  activeBots(): Promise<BotRecord[]> {
    return activeBots(this.redis, this.keys);
  }
}
