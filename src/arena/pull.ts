import { randomUUID } from 'node:crypto';
import type { MatchState } from '../contract/index.ts';
import { NotFoundError, PermissionError, RateLimitedError } from '../model/errors.ts';
import { turnOf } from '../model/live-events.ts';
import { type Color, colorOfBot, type MatchRecord } from '../model/records.ts';
import { matchState } from '../protocol/match-state.ts';
import type { BotEvent, BotEventStore, PullStore } from '../store/pull-store.ts';
import type { Stores } from '../store/store.ts';
import { type Clock, systemClock } from '../support/clock.ts';
import { assertUnsealed } from './league-weeks.ts';
import { type Principal, requirePrincipal } from './principal.ts';
import { type ActionInput, playPulledAction } from './pulled-move.ts';

export type { ActionInput };

/** A bot's hold on one of the few event streams and long polls it may have open at once. */
export interface StreamLease {
  /** Extends the lease; false when it lapsed and the bot's other streams took its place. */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/** A lease held in the pull store; methods, not a pair of closures, as thousands are held at once. */
class HeldStream implements StreamLease {
  constructor(
    private readonly pull: PullStore,
    private readonly botId: string,
    private readonly id: string,
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  renew(): Promise<boolean> {
    return this.pull.holdStream(this.botId, this.id, this.ttlMs, this.max);
  }

  release(): Promise<void> {
    return this.pull.releaseStream(this.botId, this.id).catch(ignore);
  }
}

const ignore = (): void => {};

/** Whether `state` answers a long poll of `viewer`: its turn has opened, or the match is over. */
function readyFor(state: MatchState, viewer: Color): boolean {
  return state.toMove === null || (state.toMove === viewer && state.deadline !== null);
}

/**
 * The state a `yourTurn` event among `events` carries when it is the newest event of this match:
 * the worker wrote it, in the step that opened the turn, as the state the bot's own read would
 * answer then (runner/pull-player.ts), so a long poll answers with it rather than reading the
 * match and replaying its game again. Null when the match's newest event is another (its end:
 * read the final state) or there is none.
 */
function turnToldIn(events: readonly BotEvent[], matchId: string, viewer: Color): MatchState | null {
  const mark = `"matchId":"${matchId}"`;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (!event.data.includes(mark)) continue;
    if (event.type !== 'yourTurn') return null;
    const state = JSON.parse(event.data) as MatchState;
    return state.matchId === matchId && readyFor(state, viewer) ? state : null;
  }
  return null;
}

/** What a bot at its cap of streams is told to wait before trying again. */
const STREAM_RETRY_AFTER_SECONDS = 5;

/** The caller's colour in a match, or null for spectators. */
function colorOf(match: MatchRecord, principal: Principal | null): Color | null {
  return principal?.kind === 'bot' ? colorOfBot(match, principal.botId) : null;
}

/**
 * Pull mode: bots that read the state and post actions through the API instead of being called.
 * The API records each pulled move itself (see pulled-move.ts); the worker hears of it (PullPlayer).
 */
export class PullService {
  constructor(
    private readonly deps: {
      readonly stores: Pick<Stores, 'matches'>;
      readonly pull: PullStore;
      /** Event streams plus long polls one bot may hold at once. */
      readonly maxStreamsPerBot: number;
      /** The time a league game's seal is judged by (see league-weeks.ts); the system's by default. */
      readonly clock?: Clock;
    },
  ) {}

  /**
   * Takes one of the bot's stream leases for `ttlMs` (renew it before then), or refuses with
   * `429 streams/too-many` when the bot holds its most already: one bot cannot tie up the
   * connections every other bot's streams and long polls need.
   */
  async holdStream(botId: string, ttlMs: number): Promise<StreamLease> {
    const { pull, maxStreamsPerBot: max } = this.deps;
    const id = randomUUID();
    if (!(await pull.holdStream(botId, id, ttlMs, max))) {
      throw new RateLimitedError(
        `A bot may hold at most ${max} event streams and long polls at once; close one first.`,
        STREAM_RETRY_AFTER_SECONDS,
        'streams/too-many',
      );
    }
    return new HeldStream(pull, botId, id, ttlMs, max);
  }

  private async load(matchId: string) {
    const { stores, pull } = this.deps;
    const [read, turn] = await Promise.all([
      stores.matches.getMatchWithRatings(matchId),
      pull.getTurn(matchId),
    ]);
    if (read === null) throw new NotFoundError('matches/not-found', `No match has the id ${matchId}.`);
    const { match, moves } = read;
    const ratings = { black: read.ratings.black ?? 0, white: read.ratings.white ?? 0 };
    return { match, moves, turn, ratings };
  }

  async state(principal: Principal | null, matchId: string): Promise<MatchState> {
    return (await this.view(principal, matchId)).state;
  }

  /** The state as `principal` sees it, and its colour in the match (null for spectators). */
  private async view(principal: Principal | null, matchId: string) {
    const { match, moves, turn, ratings } = await this.load(matchId);
    assertUnsealed(principal, match, (this.deps.clock ?? systemClock).now());
    const ply = moves.length + 1;
    const viewer = colorOf(match, principal);
    // A pull bot's open turn names its deadline. Spectators see any bot's, as the arena told it on
    // the match's live events; a player's long poll waits for its own turn to open, as before.
    const deadline =
      turn !== null && turn.ply === ply
        ? turn.deadline
        : viewer === null && match.status === 'running'
          ? await this.liveDeadline(matchId, ply)
          : null;
    const privileged = principal?.kind === 'admin';
    return { state: matchState({ match, moves, viewer, privileged, ratings, deadline }), viewer };
  }

  /** The deadline of the turn at `ply` as the match's newest live event tells it, if it does. */
  private async liveDeadline(matchId: string, ply: number): Promise<number | null> {
    const [latest] = await this.deps.pull.matchEvents.latest([matchId]);
    const turn = latest ? turnOf(latest) : null;
    return turn !== null && turn.ply === ply ? turn.deadline : null;
  }

  /**
   * Long-polls: answers as soon as it is the caller's turn (its deadline set) or the match is over,
   * else at `waitMs` with the current state. Waits on the caller's event stream, never by polling.
   * `stop` aborts when the caller went away or the arena shuts down; either answers at once with
   * the current state rather than holding the shutdown for the rest of the wait.
   */
  async awaitTurn(
    principal: Principal | null,
    matchId: string,
    waitMs: number,
    stop: AbortSignal,
  ): Promise<MatchState> {
    const botId = waitMs > 0 && principal?.kind === 'bot' && !stop.aborted ? principal.botId : null;
    // The bot's newest event id is read before the state, on the same connection: an event
    // appended after the state was read comes after that id, so the wait from it hears it. One
    // read of the state then serves both the answer at once and the decision to wait.
    const [lastId, { state, viewer }] = await Promise.all([
      botId === null ? null : this.deps.pull.lastEventId(botId),
      this.view(principal, matchId),
    ]);
    // A caller gone during the read is not worth taking the lease for.
    if (botId === null || stop.aborted || lastId === null || viewer === null || readyFor(state, viewer))
      return state;
    // Not awaited: this frame, and the state it read, are not held for the whole wait.
    return this.waitForTurn(botId, matchId, waitMs, viewer, lastId, stop);
  }

  /**
   * The long poll's wait, from the bot's event `lastId` (the state read after it was not ready).
   * Only a state that is ready is kept in a variable: thousands of waits are open at once, each
   * holding what its frame holds until it answers.
   */
  private async waitForTurn(
    botId: string,
    matchId: string,
    waitMs: number,
    viewer: Color,
    lastId: string,
    stop: AbortSignal,
  ): Promise<MatchState> {
    const principal: Principal = { kind: 'bot', botId };
    const until = performance.now() + waitMs;
    const lease = await this.holdStream(botId, waitMs + LEASE_MARGIN_MS);
    // `stop` ends the wait at once; the answer is then the state as it stands.
    const reader = this.deps.pull.openReader(stop);
    try {
      for (let after = lastId; ; ) {
        const left = Math.floor(until - performance.now());
        if (left <= 0 || stop.aborted || reader.ended) return await this.state(principal, matchId);
        const events = await reader.read(botId, after, left);
        if (events.length === 0) continue;
        after = events.at(-1)?.id ?? after;
        const told = turnToldIn(events, matchId, viewer);
        if (told !== null) return told;
        const state = await this.readyState(principal, matchId, viewer);
        if (state !== null) return state;
      }
    } finally {
      reader.close();
      // Not awaited: the release is sent before the answer, on the connection any next request of
      // the bot's uses too, so Redis runs it first; the answer need not wait for its reply.
      void lease.release();
    }
  }

  /** The match's state for `viewer`'s long poll when it answers it, else null (see `readyFor`). */
  private async readyState(principal: Principal, matchId: string, viewer: Color): Promise<MatchState | null> {
    const state = await this.state(principal, matchId);
    return readyFor(state, viewer) ? state : null;
  }

  /**
   * Plays a pull bot's move: checked and recorded here, in one step guarded by the bot's open
   * turn (see pulled-move.ts), and answered with the state that step wrote: the move as recorded
   * (its direction included) and the clocks it was charged. A retry of an accepted action (same
   * ply, or same Idempotency-Key) plays nothing and answers with the current state. `played` is
   * true only for the post that put the move on the board: that is the move the arena asked for,
   * which the rate limit does not count. `gone` (the caller went away) ends a wait for the turn.
   *
   * @example
   * const { state } = await service.act(bot, matchId, { action: 'c3', direction: 'e', ply: 9 }, key, gone);
   */
  async act(
    principal: Principal | null,
    matchId: string,
    input: ActionInput,
    idempotencyKey: string | undefined,
    gone: AbortSignal,
  ): Promise<{ readonly state: MatchState; readonly played: boolean }> {
    const who = requirePrincipal(principal);
    if (who.kind !== 'bot') {
      // Only a player may act; the admin and accounts are no player (a 404 still comes first).
      await this.load(matchId);
      throw new PermissionError('matches/not-a-player', 'This token is not a player of this match.');
    }
    const answer = await playPulledAction(this.deps.pull, who.botId, matchId, input, idempotencyKey, gone);
    return { state: answer.state ?? (await this.state(who, matchId)), played: answer.played };
  }
}

export type StreamItem =
  | { readonly id?: string; readonly type: string; readonly data: string }
  | 'keep-alive';

/**
 * How long a bot counts as online (listening to its event stream, what matchmaking asks) after its
 * stream was opened or last renewed: three keep-alives.
 */
export const presenceSeconds = (keepAliveMs: number) => Math.ceil((keepAliveMs * 3) / 1000);

/**
 * A bot's event stream: every event after `after` (a stream id; a reconnect passes its Last-Event-ID
 * and loses nothing the stream still holds). A fresh connection (`snapshot`) first gets a
 * `yourTurn` for each match waiting for the bot. Yields 'keep-alive' after `keepAliveMs` of
 * silence. Keeps the bot online while it listens (the caller marks it online before the stream
 * opens: a client whose stream has opened finds its bot online).
 */
export async function* botEvents(
  service: PullService,
  deps: { readonly stores: Pick<Stores, 'matches'>; readonly pull: BotEventStore },
  botId: string,
  start: { readonly after: string; readonly snapshot: boolean },
  closed: AbortSignal,
  keepAliveMs: number,
  lease: StreamLease,
): AsyncGenerator<StreamItem> {
  const reader = deps.pull.openReader(closed);
  const onlineSeconds = presenceSeconds(keepAliveMs);
  try {
    let after = start.after;
    // A turn opened between fixing `after` and reading the snapshot is in both: sent once.
    const snapshotTurns = new Set<string>();
    if (start.snapshot) yield* snapshotOfTurns(service, deps, botId, snapshotTurns);
    let renewedAt = performance.now();
    while (!closed.aborted) {
      const events = await reader.read(botId, after, keepAliveMs);
      if (closed.aborted || reader.ended) break;
      if (events.length === 0) yield 'keep-alive';
      for (const event of events) {
        after = event.id;
        const told =
          snapshotTurns.size > 0 &&
          event.type === 'yourTurn' &&
          snapshotTurns.delete(turnKey(JSON.parse(event.data)));
        if (told) continue;
        yield event;
      }
      // After the events, not before: two round trips no longer stand between a turn and the bot.
      // And at most every half keep-alive, well within the lease's and the presence's lifetimes
      // (see holdStream), rather than on every event a busy bot gets.
      if (performance.now() - renewedAt < keepAliveMs / 2) continue;
      if (!(await lease.renew())) return;
      await deps.pull.markOnline(botId, onlineSeconds);
      renewedAt = performance.now();
    }
  } catch (error) {
    if (!closed.aborted) throw error;
  } finally {
    reader.close();
    await lease.release();
  }
}

/**
 * A `yourTurn` for each of the bot's running matches waiting on it now, each noted in `told`. A
 * generator of its own, so the states it reads are not held by the stream's frame for its life.
 */
async function* snapshotOfTurns(
  service: PullService,
  deps: { readonly stores: Pick<Stores, 'matches'> },
  botId: string,
  told: Set<string>,
): AsyncGenerator<StreamItem> {
  const running = await deps.stores.matches.listMatches({ botId, status: 'running', limit: 100 });
  for (const match of running.items) {
    const state = await service.state({ kind: 'bot', botId }, match.id);
    if (state.toMove === state.you && state.deadline !== null) {
      told.add(turnKey(state));
      yield { type: 'yourTurn', data: JSON.stringify(state) };
    }
  }
}

const turnKey = (turn: { readonly matchId: string; readonly ply: number }) => `${turn.matchId}:${turn.ply}`;

/** How long a stream lease outlives the wait it covers: a process that dies frees it after this. */
export const LEASE_MARGIN_MS = 10_000;
