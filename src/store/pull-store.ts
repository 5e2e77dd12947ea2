/**
 * Pull mode's storage, as its callers see it: turns (the worker opens one and waits for the action
 * the API hands over) and each bot's events (its stream, its leases on streams, its presence). How
 * they are kept, and on which connections they wait, is the implementation's business (see
 * redis-pull-store.ts): above src/store/ no one holds a connection.
 */

import type { MatchEventStore } from './match-event-store.ts';

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

/** What recording an action did: `accepted` for the first post of a ply, else the one recorded first. */
export type SubmitOutcome =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly recorded: PulledAction };

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

/** The open turns of pull bots and the actions they post. */
export interface TurnStore {
  /** Opens the turn and tells its bot (`event`, a `yourTurn` on its stream) in one write. */
  openTurn(turn: OpenTurn, event: string): Promise<void>;
  closeTurn(matchId: string): Promise<void>;
  getTurn(matchId: string): Promise<OpenTurn | null>;
  /**
   * Records a bot's action for a ply once, and wakes the worker waiting for it. For a later post
   * of the same ply, the action recorded first (the caller tells a retry from a conflict).
   */
  submitAction(matchId: string, action: PulledAction, idempotencyKey?: string): Promise<SubmitOutcome>;
  actionForIdempotencyKey(matchId: string, key: string): Promise<PulledAction | null>;
  /**
   * Waits until the action for `ply` is recorded; `null` when `timeoutMs` passes or `signal`
   * aborts first. Waits are woken, never polled, and cost no connection each.
   */
  awaitAction(
    matchId: string,
    ply: number,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<PulledAction | null>;
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
