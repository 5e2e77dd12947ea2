/**
 * Pull mode's storage, as its callers see it: turns (the worker opens one, the API records the
 * move through it, the worker hears of the move) and each bot's events (its stream, its leases on streams, its presence). How
 * they are kept, and on which connections they wait, is the implementation's business (see
 * redis-pull-store.ts): above src/store/ no one holds a connection.
 */

import type { LiveTurn } from '../model/live-events.ts';
import type { MatchRecord, MoveRecord } from '../model/records.ts';
import type { MatchEventStore } from './match-event-store.ts';

/** A pull bot's turn as the worker opens it; the store stamps its start by its own clock. */
export interface OpenTurn {
  readonly matchId: string;
  readonly ply: number;
  readonly player: 'black' | 'white';
  readonly botId: string;
  /** When the bot runs out of time (epoch ms), as the runner fixed it and told spectators. */
  readonly deadline: number;
  /** The time the bot has, counted on the store's clock from the turn's start: it judges a late action. */
  readonly timeoutMs: number;
  /** The match's run that opened it: a move recorded through the turn is written as that run's. */
  readonly run: string;
  /** Both players' ratings when the turn opened, for the state an action is answered with. */
  readonly ratings: { readonly black: number; readonly white: number };
}

/** An open turn as stored: with its start on the store's clock (epoch ms). */
export interface OpenedTurn extends OpenTurn {
  readonly startedAt: number;
}

export interface PulledAction {
  readonly ply: number;
  readonly action: string;
  readonly direction?: string;
  readonly colour?: string;
}

/** What a posted action is judged against, read in one round trip. */
export interface ActionContext {
  readonly match: MatchRecord;
  readonly moves: MoveRecord[];
  readonly turn: OpenedTurn | null;
  /** The store's clock when it read them (epoch ms): a move's latency is counted to this instant. */
  readonly now: number;
  /** The action recorded under the caller's idempotency key, when one was asked for and found. */
  readonly earlier: PulledAction | null;
}

/** A pull bot's move, to record through its open turn (see `TurnStore.recordPulledMove`). */
export interface PulledMove {
  readonly matchId: string;
  readonly botId: string;
  readonly move: MoveRecord;
  /** The turn after the move: with it, the match's `move` event that spectators and the worker hear. */
  readonly next: LiveTurn;
  /** Kept under `idempotencyKey` (when given), so a retry is told from a conflict. */
  readonly action: PulledAction;
  readonly idempotencyKey?: string;
}

/**
 * What recording a pulled move did: `recorded`; `late` when the store's clock had passed the
 * turn's time (the worker judges the timeout); `not-open` when no turn of this bot is open at
 * that ply (not opened yet, or already closed by a move or a timeout).
 */
export type PulledMoveOutcome = 'recorded' | 'late' | 'not-open';

/** A ply recorded through a pull turn, as its match's `move` event tells it. */
export interface RecordedPly {
  readonly move: MoveRecord;
  /** The turn after it, as the API fixed it. */
  readonly turn: LiveTurn;
}

export type BotEventType =
  | 'matchStarted'
  | 'yourTurn'
  | 'matchFinished'
  | 'challenge'
  | 'challengeDeclined'
  | 'challengeExpired';

export interface BotEvent {
  /** Orders a bot's events; a reconnecting stream resumes after the last id it saw. */
  readonly id: string;
  readonly type: BotEventType;
  readonly data: string;
}

/**
 * The open turns of pull bots. One writer per ply: the API records a pulled move itself, in one
 * step guarded by the open turn (`recordPulledMove`), and the worker hears of it on the match's
 * event stream (`awaitPulledMove`); a turn whose time is up is closed by the worker, once
 * (`closeTurn`), so a move and a timeout never both count.
 */
export interface TurnStore {
  /** Opens the turn and tells its bot (`event`, a `yourTurn` on its stream) in one write. */
  openTurn(turn: OpenTurn, event: string): Promise<OpenedTurn>;
  /**
   * Closes the turn at `ply` if it is still open: true when this closed it (no move came), false
   * when a move was recorded through it first.
   */
  closeTurn(matchId: string, ply: number): Promise<boolean>;
  getTurn(matchId: string): Promise<OpenedTurn | null>;
  /** The match, its moves, its open turn and the store's clock, for an action; null for no match. */
  readForAction(matchId: string, idempotencyKey?: string): Promise<ActionContext | null>;
  /**
   * Records a pulled move, its event and its idempotency key at once, only while the bot's turn at
   * that ply is open and its time (on the store's clock) is not up; closes the turn.
   */
  recordPulledMove(move: PulledMove): Promise<PulledMoveOutcome>;
  /**
   * Waits for ply `ply` to be recorded through a pull turn, hearing the match's events after
   * `afterId`: the ply, `ended` when the match ended first, or null when `timeoutMs` passed or
   * `signal` aborted. Waits are woken, never polled, and cost no connection each.
   */
  awaitPulledMove(
    matchId: string,
    ply: number,
    afterId: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<RecordedPly | 'ended' | null>;
}

/**
 * Waits on bots' event streams for one waiter (an event stream, a long poll): made by
 * `BotEventStore.openReader`, closed by the waiter when it is done.
 */
export interface BotEventReader {
  /**
   * The events of `botId` after `afterId`, waiting up to `waitMs` for the first (no wait at 0);
   * `[]` when none came, or when the reader's signal aborted the wait.
   */
  read(botId: string, afterId: string, waitMs: number): Promise<BotEvent[]>;
  /** Ends the reader; a wait in progress answers `[]`. */
  close(): void;
  /**
   * True once a read can wait no more (the reader closed, its signal aborted, or the store closing
   * its waits): every read then answers `[]` at once, so a loop of reads must stop on it.
   */
  readonly ended: boolean;
}

/** Each bot's event stream, its leases on streams and long polls, and its presence. */
export interface BotEventStore {
  appendEvent(botId: string, type: BotEventType, data: string): Promise<void>;
  /** The newest event id of a bot's stream ('0-0' when it has none). */
  lastEventId(botId: string): Promise<string>;
  /** Whether the bot's stream may have trimmed events that came after `eventId` (see `trimmedPast`). */
  trimmedPast(botId: string, eventId: string): Promise<boolean>;
  /** A reader for one waiter, until `signal` aborts or it is closed. */
  openReader(signal: AbortSignal): BotEventReader;
  /**
   * Takes (or renews) the lease `leaseId` on one of the at most `max` streams and long polls a bot
   * may hold at once, for `ttlMs`. False when the bot holds `max` others already.
   */
  holdStream(botId: string, leaseId: string, ttlMs: number, max: number): Promise<boolean>;
  releaseStream(botId: string, leaseId: string): Promise<void>;
  /** Marks the bot as listening for `ttlSeconds` (matchmaking pairs a pull bot only then). */
  markOnline(botId: string, ttlSeconds: number): Promise<void>;
  isOnline(botId: string): Promise<boolean>;
}

/** Everything pull mode stores. */
export interface PullStore extends TurnStore, BotEventStore {
  /** Matches' live events for spectators, waited on through the same subscriber as bots' events. */
  readonly matchEvents: MatchEventStore;
  /** Closes the connections it opened for waiting. */
  close(): Promise<void>;
}
