/**
 * The game seam, as Battlesnake's `Ruleset` and boardgame.io's `Game` have it: everything the arena
 * asks of a game, so the runner, the match model, the protocol and the pull service never name one.
 * A game is a turn-based board game whose sides are named by colour on the wire ('black' and
 * 'white') and whose actions name a square, optionally with a direction or a disc colour. A
 * one-player game (the solo game) is one whose `toMove` is always the same side: the arena seats
 * its player on both sides of the match record, and only that side is ever asked. Pure: a game does no
 * I/O and keeps no state between calls; its states are values the arena passes back in.
 */

import { type Color, opponent } from '../reversi/index.ts';

/** A side of a match, named by colour on the wire. One home for the names: the engine's `Color`. */
export type Side = Color;

/**
 * The other side (the engine's `opponent`: one home for the fact).
 *
 * @example
 * otherSide('white'); // 'black'
 */
export const otherSide: (side: Side) => Side = opponent;

/** A number per side: discs, marks, points. */
export interface SideCounts {
  readonly black: number;
  readonly white: number;
}

/** How a finished game came out: the winner (null for a draw) and each side's count. */
export interface Outcome {
  readonly winner: Side | null;
  /** What a match's result records as `discs`. */
  readonly counts: SideCounts;
}

/**
 * An action as a bot names it (the wire's `BotAction`): a square and, where the rules read one, a
 * direction, or the colour of the disc placed (the solo game, whose one player plays both colours).
 */
export interface GameAction {
  readonly action: string;
  readonly direction?: string;
  readonly colour?: Side;
}

/** What an action names beside its square: a direction, a disc's colour. */
export interface ActionChoices<Direction extends string = string> {
  readonly direction?: Direction;
  readonly colour?: Side;
}

/**
 * The choices `named` holds, without keys for those it leaves out: how records, replays and the
 * wire pass them on.
 *
 * @example
 * actionChoices({ direction: undefined, colour: 'white' }); // { colour: 'white' }
 */
export function actionChoices<Direction extends string>(named: {
  readonly direction?: Direction | undefined;
  readonly colour?: Side | undefined;
}): ActionChoices<Direction> {
  return {
    ...(named.direction ? { direction: named.direction } : {}),
    ...(named.colour ? { colour: named.colour } : {}),
  };
}

/**
 * The choices of `action` that `game` records under `options`: its direction where the rules read
 * one, its colour where the player picks one. Any other is no part of the action (two posts that
 * differ only in it are the same action).
 */
export function recordedChoices<State, Options>(
  game: Game<State, Options>,
  options: Options,
  action: { readonly direction?: string | undefined; readonly colour?: Side | undefined },
): ActionChoices {
  return actionChoices({
    direction: game.recordsDirection(options) ? action.direction : undefined,
    colour: game.choosesColour ? action.colour : undefined,
  });
}

/**
 * What applying an action gives: the next state and the squares the wire reports as flipped for it,
 * or why the action is not legal (a sentence for the bot; the arena records it with the fault).
 */
export type Applied<State> =
  | { readonly ok: true; readonly state: State; readonly flips: readonly string[] }
  | { readonly ok: false; readonly message: string };

/**
 * One game. `State` is the game's own value for a position (the side to move included); `Options`
 * its rules options, fixed when a match is created and stored with the match's rules.
 *
 * The arena drives every game the same way: `initialState(options(match.rules))`, then the
 * `openingActions` played by the arena itself, then while `!isOver(state)` the side
 * `toMove(state)` either passes (when `mustPass`) or answers an action that `apply` judges; at
 * the end `outcome` decides the result. Methods never throw for a bot's bad action: `apply`
 * returns it as `{ ok: false }`, a game event for the caller to judge.
 *
 * @example
 * const game = gameFor('reversi');
 * const options = game.options({ firstPlayer: 'black' });
 * const start = game.initialState(options);
 * game.toMove(start); // 'black'
 * const next = game.apply(start, { action: game.legalActions(start)[0]! }, options);
 * if (next.ok) next.flips; // the squares the move flipped
 */
export interface Game<State, Options> {
  /** The id matches carry (`MatchRecord.game`) and bots see as the state's `game`. */
  readonly id: string;
  /** The options a match gets for any it leaves out. */
  readonly defaultOptions: Options;
  /**
   * The game's options from a match's rules: unset ones from `defaultOptions`; keys it does not
   * know (the rules' time control, another game's options) are dropped. Throws for a value outside
   * the documented ones, so a bad value cannot silently become a different game.
   */
  options(rules?: Readonly<Partial<Options>>): Options;
  /** The position a match starts from. */
  initialState(options: Options): State;
  /**
   * The actions the arena plays itself from `initialState(options)`, before either side is asked:
   * the opening the options name (Reversi's balanced openings), none for the bare start. Each is
   * legal in turn and none is a pass, so a game may refuse options whose opening does not play.
   * The arena records them as plies of the match, marked as the opening.
   */
  openingActions(options: Options): readonly GameAction[];
  /** The side whose turn it is (after the end: the side that would move). */
  toMove(state: State): Side;
  /** The actions the side to move may play, in the order bots are shown them; empty when it must pass or the game is over. */
  legalActions(state: State): string[];
  /** True when the side to move has no action but the game goes on: the arena passes for it. */
  mustPass(state: State): boolean;
  /** The position after the side to move passes. Throws unless `mustPass(state)`: only the arena passes. */
  pass(state: State): State;
  /** Plays `action` for the side to move; never throws for a bad action and never changes `state`. */
  apply(state: State, action: GameAction, options: Options): Applied<State>;
  /**
   * Whether the arena records an action's direction under `options` (the wire's `direction` on a
   * move). Where it does not, a direction is no part of the action: two posts that differ only in
   * one are the same action.
   */
  recordsDirection(options: Options): boolean;
  /**
   * Whether an action names the colour of the disc it places (`GameAction.colour`), which the arena
   * then records with the move: the solo game's player picks a colour each move.
   */
  readonly choosesColour: boolean;
  /**
   * What a bot is shown beside the board, for a game whose board rows do not say it all (the solo
   * game's tokens, captures and score, and its legal actions with their colours). Must show the
   * player nothing it may not know yet. Absent for Reversi.
   */
  shownState?(state: State, options: Options): Readonly<Record<string, unknown>>;
  /** True when neither side can act any more. */
  isOver(state: State): boolean;
  /** The result of a finished game under `options` (on an unfinished one: the board as it stands). */
  outcome(state: State, options: Options): Outcome;
  /** Each side's count as the board stands (Reversi's discs, whatever its scoring): what a match ended by a fault records. */
  counts(state: State, options: Options): SideCounts;
  /** The board as rows of text, first row first: what a bot is shown as `board`. */
  boardRows(state: State): string[];
}

/**
 * A game whose state and options the caller does not know: what the registry hands out. The arena
 * only passes a game's own values back to it, so it never needs their types. (Method parameters are
 * compared bivariantly, which is what lets every `Game<S, O>` be one.)
 */
export type AnyGame = Game<unknown, unknown>;
