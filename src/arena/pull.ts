import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  RuleViolationError,
} from '../errors.ts';
import { engineRules, replay } from '../match/replay.ts';
import type { MatchState } from '../protocol/state.ts';
import { type Color, type Direction, legalMoves, play } from '../reversi/index.ts';
import type { PulledAction, PullStore } from '../store/pull-store.ts';
import type { MatchRecord } from '../store/records.ts';
import type { ArenaStore } from '../store/store.ts';
import { matchState } from './match-state.ts';
import { type Principal, requirePrincipal } from './principal.ts';

export interface ActionInput {
  readonly action: string;
  readonly direction?: Direction;
  readonly ply?: number;
}

/** A bot's hold on one of the few event streams and long polls it may have open at once. */
export interface StreamLease {
  /** Extends the lease; false when it lapsed and the bot's other streams took its place. */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/** What a bot at its cap of streams is told to wait before trying again. */
const STREAM_RETRY_AFTER_SECONDS = 5;

/** The caller's colour in a match, or null for spectators. */
function colorOf(match: MatchRecord, principal: Principal | null): Color | null {
  if (principal?.kind !== 'bot') return null;
  if (match.black.id === principal.botId) return 'black';
  if (match.white.id === principal.botId) return 'white';
  return null;
}

/**
 * Pull mode: bots that read the state and post actions through the API instead of being called.
 * The worker waits for the action (see PullPlayer); this side checks and hands it over.
 */
export class PullService {
  constructor(
    private readonly deps: {
      readonly store: ArenaStore;
      readonly pull: PullStore;
      readonly blocking: () => Redis;
      /** Event streams plus long polls one bot may hold at once. */
      readonly maxStreamsPerBot: number;
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
    return {
      renew: () => pull.holdStream(botId, id, ttlMs, max),
      release: () => pull.releaseStream(botId, id).catch(() => {}),
    };
  }

  private async load(matchId: string) {
    const { store, pull } = this.deps;
    const [match, moves, turn] = await Promise.all([
      store.getMatch(matchId),
      store.getMoves(matchId),
      pull.getTurn(matchId),
    ]);
    if (match === null) throw new NotFoundError('matches/not-found', `No match has the id ${matchId}.`);
    const bots = await store.getBots([match.black.id, match.white.id]);
    const ratings = { black: bots[0]?.rating ?? 0, white: bots[1]?.rating ?? 0 };
    return { match, moves, turn, ratings };
  }

  async state(principal: Principal | null, matchId: string): Promise<MatchState> {
    return (await this.view(principal, matchId)).state;
  }

  /** The state as `principal` sees it, and its colour in the match (null for spectators). */
  private async view(principal: Principal | null, matchId: string) {
    const { match, moves, turn, ratings } = await this.load(matchId);
    const deadline = turn !== null && turn.ply === moves.length + 1 ? turn.deadline : null;
    const viewer = colorOf(match, principal);
    const privileged = principal?.kind === 'admin';
    return { state: matchState({ match, moves, viewer, privileged, ratings, deadline }), viewer };
  }

  /**
   * Long-polls: answers as soon as it is the caller's turn (its deadline set) or the match is over,
   * else at `waitMs` with the current state. Waits on the caller's event stream, never by polling.
   */
  async awaitTurn(
    principal: Principal | null,
    matchId: string,
    waitMs: number,
    closed: AbortSignal,
  ): Promise<MatchState> {
    const first = await this.view(principal, matchId);
    let { state } = first;
    const { viewer } = first;
    if (waitMs === 0 || principal?.kind !== 'bot' || viewer === null) return state;
    const ready = (s: MatchState) => s.toMove === null || (s.toMove === viewer && s.deadline !== null);
    if (ready(state)) return state;
    const lease = await this.holdStream(principal.botId, waitMs + LEASE_MARGIN_MS);
    const connection = this.deps.blocking();
    const drop = () => connection.disconnect();
    closed.addEventListener('abort', drop, { once: true });
    try {
      await connection.connect();
      let lastId = await this.deps.pull.lastEventId(principal.botId);
      const until = performance.now() + waitMs;
      state = await this.state(principal, matchId);
      while (!ready(state) && !closed.aborted) {
        const left = Math.floor(until - performance.now());
        if (left <= 0) break;
        const events = await this.deps.pull.readEvents(connection, principal.botId, lastId, left);
        lastId = events.at(-1)?.id ?? lastId;
        state = await this.state(principal, matchId);
      }
      return state;
    } finally {
      closed.removeEventListener('abort', drop);
      connection.disconnect();
      await lease.release();
    }
  }

  /**
   * Plays a pull bot's move. `played` is true only for the post that put the move on the board (not
   * for a retry of it): that is the move the arena asked for, which the rate limit does not count.
   */
  async act(
    principal: Principal | null,
    matchId: string,
    input: ActionInput,
    idempotencyKey?: string,
  ): Promise<{ readonly state: MatchState; readonly played: boolean }> {
    const who = requirePrincipal(principal);
    const { match, moves, ratings } = await this.load(matchId);
    const color = colorOf(match, who);
    if (color === null)
      throw new PermissionError('matches/not-a-player', 'This token is not a player of this match.');
    const submitted: PulledAction = {
      ply: input.ply ?? moves.length + 1,
      action: input.action,
      ...(input.direction ? { direction: input.direction } : {}),
    };
    const same = (a: PulledAction, b: PulledAction) =>
      a.ply === b.ply && a.action === b.action && (a.direction ?? null) === (b.direction ?? null);

    // A retry of an action already accepted answers as the first post did.
    const earlier =
      (idempotencyKey ? await this.deps.pull.actionForIdempotencyKey(matchId, idempotencyKey) : null) ??
      (input.ply !== undefined && input.ply <= moves.length
        ? this.recordedAt(moves, input.ply, color)
        : null);
    if (earlier !== null) {
      if (!same(earlier, { ...submitted, ply: earlier.ply })) {
        throw new ConflictError(
          'matches/ply-taken',
          `Ply ${earlier.ply} was already played with ${earlier.action}.`,
        );
      }
      return { state: await this.state(who, matchId), played: false };
    }

    if (match.status === 'finished' || match.status === 'aborted') {
      throw new ConflictError('matches/over', 'The match is over.');
    }
    const { position } = replay(match.rules, moves);
    if (position.toMove !== color || legalMoves(position).length === 0) {
      throw new ConflictError('matches/not-your-turn', `It is not ${color}'s turn.`);
    }
    if (submitted.ply !== moves.length + 1) {
      throw new ConflictError(
        'matches/not-your-turn',
        `The match is at ply ${moves.length + 1}, not ${submitted.ply}.`,
      );
    }
    const played = play(
      position,
      { square: input.action, ...(input.direction ? { direction: input.direction } : {}) },
      engineRules(match.rules),
    );
    if (!played.ok) {
      throw new RuleViolationError(
        'matches/illegal-action',
        `${input.action} is not legal: ${played.error.message}`,
        legalMoves(position),
      );
    }
    const outcome = await this.deps.pull.submitAction(matchId, submitted, idempotencyKey);
    if (!outcome.accepted && !same(outcome.recorded, submitted)) {
      throw new ConflictError(
        'matches/ply-taken',
        `Ply ${submitted.ply} was already played with ${outcome.recorded.action}.`,
      );
    }
    const after = [
      ...moves,
      { ply: submitted.ply, player: color, square: input.action, flips: played.flips, latencyMs: 0 },
    ];
    const state = matchState({
      match,
      moves: after,
      viewer: color,
      ratings,
      deadline: null,
      position: played.position,
    });
    return { state, played: outcome.accepted };
  }

  private recordedAt(
    moves: readonly { ply: number; square: string; player: Color; direction?: string }[],
    ply: number,
    color: Color,
  ) {
    const move = moves[ply - 1];
    if (!move || move.player !== color) {
      throw new InvalidRequestError('request/invalid', `Ply ${ply} was not yours to play.`, [
        { path: 'body.ply', message: 'not your ply' },
      ]);
    }
    return { ply, action: move.square, ...(move.direction ? { direction: move.direction } : {}) };
  }
}

export type StreamItem =
  | { readonly id?: string; readonly type: string; readonly data: string }
  | 'keep-alive';

/**
 * A bot's event stream: every event after `after` (a stream id; a reconnect passes its Last-Event-ID
 * and loses nothing the stream still holds). A fresh connection (`snapshot`) first gets a
 * `yourTurn` for each match waiting for the bot. Yields 'keep-alive' after `keepAliveMs` of
 * silence. Marks the bot online while it listens.
 */
export async function* botEvents(
  service: PullService,
  deps: { readonly store: ArenaStore; readonly pull: PullStore; readonly blocking: () => Redis },
  botId: string,
  start: { readonly after: string; readonly snapshot: boolean },
  closed: AbortSignal,
  keepAliveMs: number,
  lease: StreamLease,
): AsyncGenerator<StreamItem> {
  const connection = deps.blocking();
  const drop = () => connection.disconnect();
  closed.addEventListener('abort', drop, { once: true });
  const onlineSeconds = Math.ceil((keepAliveMs * 3) / 1000);
  try {
    await connection.connect();
    let after = start.after;
    await deps.pull.markOnline(botId, onlineSeconds);
    if (start.snapshot) {
      const running = await deps.store.listMatches({ botId, status: 'running', limit: 100 });
      for (const match of running.items) {
        const state = await service.state({ kind: 'bot', botId }, match.id);
        if (state.toMove === state.you && state.deadline !== null) {
          yield { type: 'yourTurn', data: JSON.stringify(state) };
        }
      }
    }
    while (!closed.aborted) {
      const events = await deps.pull.readEvents(connection, botId, after, keepAliveMs);
      if (!(await lease.renew())) return;
      await deps.pull.markOnline(botId, onlineSeconds);
      if (events.length === 0) yield 'keep-alive';
      for (const event of events) {
        after = event.id;
        yield event;
      }
    }
  } catch (error) {
    if (!closed.aborted) throw error;
  } finally {
    closed.removeEventListener('abort', drop);
    connection.disconnect();
    await lease.release();
  }
}

/** How long a stream lease outlives the wait it covers: a process that dies frees it after this. */
export const LEASE_MARGIN_MS = 10_000;
