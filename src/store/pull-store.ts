import type { Redis } from 'ioredis';
import { ChannelWakeups } from './channel-wakeups.ts';
import { type StoreKeys, storeKeys } from './keys.ts';
import { type Script, script } from './script.ts';
import { HOLD_STREAM, SUBMIT_ACTION } from './scripts.ts';

export interface OpenTurn {
  readonly matchId: string;
  readonly ply: number;
  readonly player: 'black' | 'white';
  readonly botId: string;
  readonly startedAt: number;
  readonly deadline: number;
}

export interface PulledAction {
  readonly ply: number;
  readonly action: string;
  readonly direction?: string;
}

export type BotEventType = 'matchStarted' | 'yourTurn' | 'matchFinished';

export interface BotEvent {
  readonly id: string;
  readonly type: BotEventType;
  readonly data: string;
}

/** Keys of the pull protocol expire after a day: a match never waits that long. */
const TTL_SECONDS = 24 * 3600;
const EVENTS_KEPT = 1000;

/**
 * The pull protocol's storage: the open turn of a pull bot, the actions it posts (announced on the
 * match's channel, which the worker's one subscriber connection listens to, so no one polls and no
 * turn costs a connection), each bot's event stream (a Redis stream whose entry ids are the SSE
 * event ids, so a reconnecting client resumes exactly where it left off), and the leases that cap
 * a bot's open streams and long polls.
 */
export class PullStore {
  readonly keys: StoreKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = storeKeys(prefix);
    this.submit = script<string>(redis, SUBMIT_ACTION, 3);
    this.holdStreamScript = script(redis, HOLD_STREAM, 1);
    this.wakeups = new ChannelWakeups(() =>
      redis.duplicate({
        enableOfflineQueue: true,
        maxRetriesPerRequest: null,
        commandTimeout: undefined,
        connectionName: 'reversi-arena-actions',
      }),
    );
  }

  private readonly submit: Script<string>;
  private readonly holdStreamScript: Script;
  private readonly wakeups: ChannelWakeups;

  /** Closes the subscriber connection, if waiting ever opened it. */
  close(): Promise<void> {
    return this.wakeups.close();
  }

  async openTurn(turn: OpenTurn, event: string): Promise<void> {
    const key = this.keys.turn(turn.matchId);
    await this.redis
      .multi()
      .hset(key, {
        ...turn,
        ply: String(turn.ply),
        startedAt: String(turn.startedAt),
        deadline: String(turn.deadline),
      })
      .expire(key, TTL_SECONDS)
      .xadd(
        this.keys.botEvents(turn.botId),
        'MAXLEN',
        '~',
        EVENTS_KEPT,
        '*',
        'type',
        'yourTurn',
        'data',
        event,
      )
      .exec();
  }

  async closeTurn(matchId: string): Promise<void> {
    await this.redis.del(this.keys.turn(matchId));
  }

  async getTurn(matchId: string): Promise<OpenTurn | null> {
    const hash = await this.redis.hgetall(this.keys.turn(matchId));
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

  /**
   * Records a bot's action for a ply once. `accepted` for the first post; for a later one, the
   * action recorded first (the caller tells a retry from a conflicting second action).
   */
  async submitAction(
    matchId: string,
    action: PulledAction,
    idempotencyKey?: string,
  ): Promise<{ accepted: true } | { accepted: false; recorded: PulledAction }> {
    const k = this.keys;
    const reply = await this.submit(
      k.answer(matchId, action.ply),
      k.actions(matchId),
      idempotencyKey ? k.idempotency(matchId, idempotencyKey) : '',
      JSON.stringify(action),
      TTL_SECONDS,
    );
    return reply === 'accepted' ? { accepted: true } : { accepted: false, recorded: JSON.parse(reply) };
  }

  async actionForIdempotencyKey(matchId: string, key: string): Promise<PulledAction | null> {
    const recorded = await this.redis.get(this.keys.idempotency(matchId, key));
    return recorded === null ? null : (JSON.parse(recorded) as PulledAction);
  }

  /**
   * Waits until the action for `ply` is recorded or `timeoutMs` passes (`null`), or `signal` aborts
   * (`null`). It listens on the match's channel through the shared subscriber and reads the
   * recorded answer whenever woken, once before waiting and once more at the deadline.
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
    const stop = await this.wakeups.listen(this.keys.actions(matchId), () => {
      woken = true;
      resume?.();
    });
    try {
      for (;;) {
        woken = false;
        const recorded = await this.redis.get(this.keys.answer(matchId, ply));
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

  /**
   * Takes (or renews) the lease `leaseId` on one of the at most `max` streams and long polls a bot
   * may hold at once, for `ttlMs`. False when the bot holds `max` others already.
   */
  async holdStream(botId: string, leaseId: string, ttlMs: number, max: number): Promise<boolean> {
    return (await this.holdStreamScript(this.keys.botStreams(botId), leaseId, ttlMs, max)) === 1;
  }

  async releaseStream(botId: string, leaseId: string): Promise<void> {
    await this.redis.zrem(this.keys.botStreams(botId), leaseId);
  }

  async appendEvent(botId: string, type: BotEventType, data: string): Promise<void> {
    await this.redis.xadd(
      this.keys.botEvents(botId),
      'MAXLEN',
      '~',
      EVENTS_KEPT,
      '*',
      'type',
      type,
      'data',
      data,
    );
  }

  /** The newest event id of a bot's stream ('0-0' when it has none). */
  async lastEventId(botId: string): Promise<string> {
    const [last] = await this.redis.xrevrange(this.keys.botEvents(botId), '+', '-', 'COUNT', 1);
    return last?.[0] ?? '0-0';
  }

  /** Events after `afterId`, waiting up to `blockMs` for one on `connection` (a blocking connection). */
  async readEvents(connection: Redis, botId: string, afterId: string, blockMs: number): Promise<BotEvent[]> {
    const reply = await connection.xread(
      'COUNT',
      100,
      'BLOCK',
      blockMs,
      'STREAMS',
      this.keys.botEvents(botId),
      afterId,
    );
    const entries = reply?.[0]?.[1] ?? [];
    return entries.map(([id, fields]) => {
      const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
      return { id, type: field('type') as BotEventType, data: field('data') };
    });
  }

  async markOnline(botId: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.keys.botOnline(botId), '1', 'EX', ttlSeconds);
  }

  async isOnline(botId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.botOnline(botId))) === 1;
  }
}
