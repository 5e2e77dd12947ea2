import type { BotAction, BotState } from '../contract/index.ts';
import type { MoveOutcome } from '../model/judge.ts';
import type { LiveTurn } from '../model/live-events.ts';
import type { Color, MatchRecord, MoveRecord } from '../model/records.ts';

export interface MoveRequest {
  readonly matchId: string;
  /** The ply asked for, and the side that plays it. */
  readonly ply: number;
  readonly you: Color;
  /** The state the side's bot sees, made when called (a push bot is sent `body()` alone). */
  state(): BotState;
  /** `state()`'s JSON as UTF-8 bytes, written from the parts of the match that change little. */
  body(): Buffer;
  /** The whole time the bot has for this move: its limit plus what is left of its overage bank. */
  readonly timeoutMs: number;
  /** Aborted when the worker shuts down mid-match. */
  readonly signal: AbortSignal;
  /**
   * When the bot runs out of time (epoch ms), as the runner fixed it when the turn started and told
   * spectators; a pull bot's turn names this same instant.
   */
  readonly deadline?: number;
  /**
   * The match as the runner holds it (every ply before this one stored), for a player that tells
   * its bot the whole match state, and the run that asks: a pull bot's move is recorded as its.
   */
  readonly match?: {
    readonly record: MatchRecord;
    readonly moves: readonly MoveRecord[];
    readonly ratings: Readonly<Record<Color, number>>;
    readonly run: string;
  };
}

/**
 * An answer the store already holds: a pull bot's move, recorded by the API through the bot's turn
 * (one writer per ply), with the turn after it as the API fixed it. The runner plays it on without
 * writing it again.
 */
export interface RecordedAnswer {
  readonly ok: true;
  readonly action: BotAction;
  readonly latencyMs: number;
  readonly recorded: { readonly next: LiveTurn };
}

/** What a player answers: an action or a fault, or a move already recorded. */
export type PlayerAnswer = MoveOutcome | RecordedAnswer;

/**
 * A side of a match as the runner sees it: asked for a move, it answers an action or a fault. A bot
 * that misbehaves is an outcome, never an exception; exceptions are the arena's own failures.
 */
export interface Player {
  move(request: MoveRequest): Promise<PlayerAnswer>;
  /**
   * True when the player reads the match's moves from the store (a pull bot's state is served
   * from there), so every earlier ply must be stored before it is asked.
   */
  readonly readsStoredMoves?: boolean;
}

export interface PlayerBot {
  readonly id: string;
  readonly url: string | null;
  readonly webhookSecret: string | null;
  /** A house bot's engine: the worker plays it itself. */
  readonly house: string | null;
}

/**
 * Finds the player for a bot: its URL for a push bot, the state/action API for a pull bot, the
 * worker itself for a house bot.
 */
export type PlayerFor = (bot: PlayerBot) => Player;
