import { ChannelWakeups } from '../connections/channel-wakeups.ts';
import { type LuaCommand, luaCommand } from '../connections/lua-command.ts';
import { type RedisClient, subscriberLike } from '../connections/redis-connection.ts';
import { type StreamEntry, StreamReader, StreamWaits, trimmedPast } from '../connections/stream-waits.ts';
import { gameFor } from '../game/index.ts';
import type { MoveRecord } from '../model/records.ts';
import type { MatchEventStore } from '../store/match-event-store.ts';
import type {
  ActionContext,
  BotEvent,
  BotEventReader,
  BotEventType,
  OpenedTurn,
  OpenTurn,
  PulledAction,
  PulledMove,
  PulledMoveOutcome,
  PullStore,
  RecordedPly,
} from '../store/pull-store.ts';
import { decodeMatch } from './codec.ts';
import { BOT_EVENTS_KEPT, type StoreKeys, storeKeys } from './keys.ts';
import { CLOSE_TURN, HOLD_STREAM, OPEN_TURN, RECORD_PULLED_MOVE } from './lua-scripts.ts';
import { encodeMoveEvent } from './match-event-codec.ts';
import { decodeMoves, encodeMove } from './move-codec.ts';
import { RedisMatchEvents } from './redis-match-events.ts';

/** Keys of the pull protocol expire after a day: a match never waits that long. */
const TTL_SECONDS = 24 * 3600;

/**
 * The pull protocol on Redis: the open turn of a pull bot and the move recorded through it (one
 * script, guarded by the turn, with the store's clock as judge), each bot's event stream (a Redis
 * stream whose entry ids are the SSE event ids, so a reconnecting client resumes exactly where it
 * left off), and the leases that cap a bot's open streams and long polls.
 *
 * It opens the one connection it waits on itself, as a duplicate of `redis`, on its first use and
 * without a command timeout: the subscriber, which hears of appends to every event stream, bots'
 * and matches' alike (see StreamWaits). However many turns, streams and long polls wait, that is
 * one connection beside `redis`. `close` closes it.
 *
 * @example
 * const pull = new RedisPullStore(redis, 'arena');
 * const heard = await pull.awaitPulledMove(matchId, 9, afterId, 5000, signal);
 */
export class RedisPullStore implements PullStore {
  readonly #redis: RedisClient;
  readonly #keys: StoreKeys;
  readonly #openTurn: LuaCommand<number>;
  readonly #closeTurn: LuaCommand<number>;
  readonly #recordPulledMove: LuaCommand<string>;
  readonly #holdStream: LuaCommand;
  readonly #wakeups: ChannelWakeups;
  /** Every event reader's waits, woken through `#wakeups`. */
  readonly #events: StreamWaits;
  /** Spectators' reads of matches' live events: their waits share `#events`. */
  readonly matchEvents: MatchEventStore;

  /**
   * @param options.onWaitError told when the waits can no longer listen or read (once per run of
   *   failures): until then they answer only at their deadlines.
   */
  constructor(
    redis: RedisClient,
    prefix: string,
    options: { readonly onWaitError?: (error: Error) => void } = {},
  ) {
    this.#redis = redis;
    this.#keys = storeKeys(prefix);
    this.#openTurn = luaCommand<number>(redis, OPEN_TURN, 2);
    this.#closeTurn = luaCommand<number>(redis, CLOSE_TURN, 1);
    this.#recordPulledMove = luaCommand<string>(redis, RECORD_PULLED_MOVE, undefined);
    this.#holdStream = luaCommand(redis, HOLD_STREAM, 1);
    this.#wakeups = new ChannelWakeups(() =>
      subscriberLike(redis, {
        enableOfflineQueue: true,
        maxRetriesPerRequest: null,
        commandTimeout: undefined,
        // The ready check (INFO) after a reconnect would meet a connection already resubscribed:
        // Redis refuses it in subscriber mode, and ioredis rejects with nobody to catch it.
        enableReadyCheck: false,
        connectionName: 'reversi-arena-subscriber',
      }),
    );
    this.#events = new StreamWaits(redis, this.#wakeups, this.#keys.streamAppends, options.onWaitError);
    this.matchEvents = new RedisMatchEvents(redis, this.#keys, this.#events);
  }

  /** Ends the waits and closes the connection waiting opened (the subscriber). */
  async close(): Promise<void> {
    await Promise.all([this.#events.close(), this.#wakeups.close()]);
  }

  async openTurn(turn: OpenTurn, event: string): Promise<OpenedTurn> {
    const k = this.#keys;
    const startedAt = await this.#openTurn(
      k.turn(turn.matchId),
      k.botEvents(turn.botId),
      turn.matchId,
      turn.ply,
      turn.player,
      turn.botId,
      turn.deadline,
      turn.timeoutMs,
      turn.run,
      turn.ratings.black,
      turn.ratings.white,
      event,
      k.streamAppends,
    );
    return { ...turn, startedAt: Number(startedAt) };
  }

  async closeTurn(matchId: string, ply: number): Promise<boolean> {
    return (await this.#closeTurn(this.#keys.turn(matchId), ply)) === 1;
  }

  async getTurn(matchId: string): Promise<OpenedTurn | null> {
    return decodeTurn(matchId, await this.#redis.hgetall(this.#keys.turn(matchId)));
  }

  async readForAction(matchId: string, idempotencyKey?: string): Promise<ActionContext | null> {
    const k = this.#keys;
    const read = this.#redis
      .pipeline()
      .hgetall(k.match(matchId))
      .getBuffer(k.moves(matchId))
      .hgetall(k.turn(matchId))
      .time();
    if (idempotencyKey !== undefined) read.get(k.idempotency(matchId, idempotencyKey));
    const replies = (await read.exec()) ?? [];
    const [hash, packed, turn, clock, earlier] = replies.map(([error, value], i) => {
      // Moves still kept as a list (the old form) are read the match store's way, below.
      if (error && !(i === 1 && /WRONGTYPE/.test(error.message))) throw error;
      return error ? LEGACY_MOVES : value;
    }) as [
      Record<string, string>,
      Buffer | null | typeof LEGACY_MOVES,
      Record<string, string>,
      [string, string],
      string | null | undefined,
    ];
    const match = decodeMatch(hash);
    if (match === null) return null;
    const game = gameFor(match.game);
    const moves =
      packed === LEGACY_MOVES
        ? (await this.#redis.lrange(k.moves(matchId), 0, -1)).map((move) => JSON.parse(move) as MoveRecord)
        : packed === null || packed.length === 0
          ? []
          : decodeMoves(packed, game, game.options(match.rules));
    return {
      match,
      moves,
      turn: decodeTurn(matchId, turn),
      now: Number(clock[0]) * 1000 + Math.floor(Number(clock[1]) / 1000),
      earlier: earlier ? (JSON.parse(earlier) as PulledAction) : null,
    };
  }

  async recordPulledMove({ matchId, botId, move, next, action, idempotencyKey }: PulledMove) {
    const k = this.#keys;
    const keys = [k.turn(matchId), k.match(matchId), k.moves(matchId), k.matchEvents(matchId)];
    if (idempotencyKey !== undefined) keys.push(k.idempotency(matchId, idempotencyKey));
    const outcome = await this.#recordPulledMove(
      keys.length,
      ...keys,
      move.ply,
      botId,
      encodeMove(move),
      encodeMoveEvent(move, next),
      JSON.stringify(action),
      TTL_SECONDS,
      k.streamAppends,
    );
    return outcome as PulledMoveOutcome;
  }

  /**
   * Reads the match's events after `afterId` through the shared subscriber's waits (as spectators
   * do), until the `move` of `ply` or a `finished` comes, or the time is up.
   */
  async awaitPulledMove(
    matchId: string,
    ply: number,
    afterId: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<RecordedPly | 'ended' | null> {
    const until = performance.now() + timeoutMs;
    const reader = this.matchEvents.openReader(signal);
    try {
      for (let after = afterId; ; ) {
        const left = Math.max(0, Math.floor(until - performance.now()));
        const events = await reader.read(matchId, after, left);
        for (const event of events) {
          if (event.type === 'move' && event.move.ply === ply) return { move: event.move, turn: event.turn };
          if (event.type === 'finished') return 'ended';
        }
        if (events.length === 0 || reader.ended) return null;
        after = events.at(-1)?.id ?? after;
      }
    } finally {
      reader.close();
    }
  }

  async holdStream(botId: string, leaseId: string, ttlMs: number, max: number): Promise<boolean> {
    return (await this.#holdStream(this.#keys.botStreams(botId), leaseId, ttlMs, max)) === 1;
  }

  async releaseStream(botId: string, leaseId: string): Promise<void> {
    await this.#redis.zrem(this.#keys.botStreams(botId), leaseId);
  }

  async appendEvent(botId: string, type: BotEventType, data: string): Promise<void> {
    const key = this.#keys.botEvents(botId);
    await this.#redis
      .multi()
      .xadd(key, 'MAXLEN', '~', BOT_EVENTS_KEPT, '*', 'type', type, 'data', data)
      .spublish(this.#keys.streamAppends, key)
      .exec();
  }

  async lastEventId(botId: string): Promise<string> {
    const [last] = await this.#redis.xrevrange(this.#keys.botEvents(botId), '+', '-', 'COUNT', 1);
    return last?.[0] ?? '0-0';
  }

  trimmedPast(botId: string, eventId: string): Promise<boolean> {
    return trimmedPast(this.#redis, this.#keys.botEvents(botId), eventId);
  }

  /**
   * A reader whose waits share the store's subscriber (see StreamWaits); its reads go over the
   * main connection. Aborting `signal` or closing the reader ends a wait in progress with `[]`.
   */
  openReader(signal: AbortSignal): BotEventReader {
    return new StreamReader({
      redis: this.#redis,
      waits: this.#events,
      keyOf: this.#keys.botEvents,
      decode: toEvents,
      signal,
    });
  }

  async markOnline(botId: string, ttlSeconds: number): Promise<void> {
    await this.#redis.set(this.#keys.botOnline(botId), '1', 'EX', ttlSeconds);
  }

  async isOnline(botId: string): Promise<boolean> {
    return (await this.#redis.exists(this.#keys.botOnline(botId))) === 1;
  }
}

/** A pipeline reply standing for moves kept in the old form, a list of JSON moves. */
const LEGACY_MOVES = Symbol('legacy moves');

/** A turn's hash as an open turn; null when no turn is open. */
function decodeTurn(matchId: string, hash: Record<string, string>): OpenedTurn | null {
  if (hash.botId === undefined) return null;
  return {
    matchId,
    ply: Number(hash.ply),
    player: hash.player === 'black' ? 'black' : 'white',
    botId: hash.botId,
    deadline: Number(hash.deadline),
    timeoutMs: Number(hash.timeoutMs),
    run: hash.run ?? '',
    ratings: { black: Number(hash.ratingBlack ?? 0), white: Number(hash.ratingWhite ?? 0) },
    startedAt: Number(hash.startedAt),
  };
}

/** Stream entries (`[id, [field, value, …]]`) as events. */
function toEvents(entries: readonly StreamEntry[]): BotEvent[] {
  return entries.map(([id, fields]) => {
    const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
    return { id, type: field('type') as BotEventType, data: field('data') };
  });
}
