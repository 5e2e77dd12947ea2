import type { Redis } from 'ioredis';
import { ChannelWakeups } from '../connections/channel-wakeups.ts';
import { type LuaCommand, luaCommand } from '../connections/lua-command.ts';
import { type StreamEntry, StreamReader, StreamWaits, trimmedPast } from '../connections/stream-waits.ts';
import type { MatchEventStore } from '../store/match-event-store.ts';
import type {
  BotEvent,
  BotEventReader,
  BotEventType,
  OpenTurn,
  PulledAction,
  PullStore,
  SubmitOutcome,
} from '../store/pull-store.ts';
import { BOT_EVENTS_KEPT, type StoreKeys, storeKeys } from './keys.ts';
import { HOLD_STREAM, SUBMIT_ACTION } from './lua-scripts.ts';
import { RedisMatchEvents } from './redis-match-events.ts';

/** Keys of the pull protocol expire after a day: a match never waits that long. */
const TTL_SECONDS = 24 * 3600;

/**
 * The pull protocol on Redis: the open turn of a pull bot, the actions it posts (announced on the
 * match's channel, which one subscriber connection per process listens to, so no one polls and no
 * turn costs a connection), each bot's event stream (a Redis stream whose entry ids are the SSE
 * event ids, so a reconnecting client resumes exactly where it left off), and the leases that cap
 * a bot's open streams and long polls.
 *
 * It opens the one connection it waits on itself, as a duplicate of `redis`, on its first use and
 * without a command timeout: the subscriber, which hears of posted actions and of appends to the
 * event streams (see StreamWaits). However many turns, streams and long polls wait, that is one
 * connection beside `redis`. `close` closes it.
 *
 * @example
 * const pull = new RedisPullStore(redis, 'arena');
 * const action = await pull.awaitAction(matchId, 9, 5000, signal);
 */
export class RedisPullStore implements PullStore {
  readonly #redis: Redis;
  readonly #keys: StoreKeys;
  readonly #submit: LuaCommand<string>;
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
  constructor(redis: Redis, prefix: string, options: { readonly onWaitError?: (error: Error) => void } = {}) {
    this.#redis = redis;
    this.#keys = storeKeys(prefix);
    this.#submit = luaCommand<string>(redis, SUBMIT_ACTION, undefined);
    this.#holdStream = luaCommand(redis, HOLD_STREAM, 1);
    this.#wakeups = new ChannelWakeups(() =>
      redis.duplicate({
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

  async openTurn(turn: OpenTurn, event: string): Promise<void> {
    const key = this.#keys.turn(turn.matchId);
    await this.#redis
      .multi()
      .hset(key, {
        ...turn,
        ply: String(turn.ply),
        startedAt: String(turn.startedAt),
        deadline: String(turn.deadline),
      })
      .expire(key, TTL_SECONDS)
      .xadd(
        this.#keys.botEvents(turn.botId),
        'MAXLEN',
        '~',
        BOT_EVENTS_KEPT,
        '*',
        'type',
        'yourTurn',
        'data',
        event,
      )
      .publish(this.#keys.streamAppends, this.#keys.botEvents(turn.botId))
      .exec();
  }

  async closeTurn(matchId: string): Promise<void> {
    await this.#redis.del(this.#keys.turn(matchId));
  }

  async getTurn(matchId: string): Promise<OpenTurn | null> {
    const hash = await this.#redis.hgetall(this.#keys.turn(matchId));
    if (hash.botId === undefined) return null;
    return {
      matchId,
      ply: Number(hash.ply),
      player: hash.player === 'black' ? 'black' : 'white',
      botId: hash.botId,
      startedAt: Number(hash.startedAt),
      deadline: Number(hash.deadline),
    };
  }

  async submitAction(matchId: string, action: PulledAction, idempotencyKey?: string): Promise<SubmitOutcome> {
    const k = this.#keys;
    const keys = [k.answer(matchId, action.ply), k.actions(matchId)];
    if (idempotencyKey) keys.push(k.idempotency(matchId, idempotencyKey));
    const reply = await this.#submit(keys.length, ...keys, JSON.stringify(action), TTL_SECONDS);
    return reply === 'accepted' ? { accepted: true } : { accepted: false, recorded: JSON.parse(reply) };
  }

  async actionForIdempotencyKey(matchId: string, key: string): Promise<PulledAction | null> {
    const recorded = await this.#redis.get(this.#keys.idempotency(matchId, key));
    return recorded === null ? null : (JSON.parse(recorded) as PulledAction);
  }

  /**
   * Listens on the match's channel through the shared subscriber and reads the recorded answer
   * whenever woken, once before waiting and once more at the deadline.
   */
  async awaitAction(
    matchId: string,
    ply: number,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<PulledAction | null> {
    const deadline = performance.now() + timeoutMs;
    let woken = false;
    let resume: (() => void) | null = null;
    const stop = await this.#wakeups.listen(this.#keys.actions(matchId), () => {
      woken = true;
      resume?.();
    });
    try {
      for (;;) {
        woken = false;
        const recorded = await this.#redis.get(this.#keys.answer(matchId, ply));
        if (recorded !== null) return JSON.parse(recorded) as PulledAction;
        const left = deadline - performance.now();
        if (left <= 0 || signal.aborted) return null;
        if (woken) continue;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            resume = null;
            resolve();
          };
          const timer = setTimeout(done, left);
          signal.addEventListener('abort', done, { once: true });
          resume = done;
        });
      }
    } finally {
      stop();
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
      .publish(this.#keys.streamAppends, key)
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

/** Stream entries (`[id, [field, value, …]]`) as events. */
function toEvents(entries: readonly StreamEntry[]): BotEvent[] {
  return entries.map(([id, fields]) => {
    const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
    return { id, type: field('type') as BotEventType, data: field('data') };
  });
}
