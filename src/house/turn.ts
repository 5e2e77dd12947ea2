/**
 * What the example bots read from a `BotState`, parsed once at the edge, and the moves a turn offers.
 * Bots ignore the fields they do not use, so they keep working when the arena adds some.
 */

import { z } from 'zod';
import {
  type Direction,
  legalMoves,
  type Position,
  play,
  positionFromBoardText,
  type RulesOptions,
  rulesOptions,
  trappingDirections,
} from '../reversi/index.ts';

const color = z.enum(['black', 'white']);

/** The part of a `BotState` the example bots use. */
export const turnSchema = z.looseObject({
  you: color,
  board: z.array(z.string().regex(/^[BW.]{8}$/, 'must be 8 of B, W, .')).length(8),
  rules: z.looseObject({
    firstPlayer: color,
    captureRule: z.enum(['all', 'single-direction']),
    scoring: z.enum(['discs', 'empties-to-winner']),
  }),
});

/** A turn as the bots see it; a full `BotState` is one. */
export type Turn = z.infer<typeof turnSchema>;

/** A bot's answer, as the `BotAction` schema has it. */
export interface Action {
  readonly action: string;
  readonly direction?: Direction;
  /** In the solo game, the colour of the disc placed. */
  readonly colour?: 'black' | 'white';
}

/** One way to play this turn: the action to answer, the position it leads to, the discs it flips. */
export interface Candidate {
  readonly action: Action;
  readonly position: Position;
  readonly flips: number;
}

/** The position on the board with `state.you` to move. */
export function positionOf(state: Turn): Position {
  return positionFromBoardText(state.board, state.you);
}

/** The engine's rules options for the turn's rules (the time limits are the arena's business). */
export function rulesOf(state: Turn): RulesOptions {
  const { firstPlayer, captureRule, scoring } = state.rules;
  return rulesOptions({ firstPlayer, captureRule, scoring });
}

/**
 * Every distinct move from `position`, in a1..h8 order. Under `single-direction` capture each
 * trapping direction of a square is its own move (named in the action, as the arena requires when a
 * square traps several lines); under `all` a square is one move. Empty when the player must pass.
 *
 * @example
 * candidates(initialPosition(), DEFAULT_RULES).map((c) => c.action.action); // ['e3', 'f4', 'c5', 'd6']
 */
export function candidates(position: Position, rules: RulesOptions): Candidate[] {
  const found: Candidate[] = [];
  for (const square of legalMoves(position)) {
    const directions: (Direction | undefined)[] =
      rules.captureRule === 'single-direction' ? trappingDirections(position, square) : [undefined];
    for (const direction of directions) {
      const result = play(position, direction === undefined ? { square } : { square, direction }, rules);
      if (!result.ok) continue; // cannot happen for a legal square; skip rather than crash a bot
      const action = direction === undefined ? { action: square } : { action: square, direction };
      found.push({ action, position: result.position, flips: result.flips.length });
    }
  }
  return found;
}

/** The moves of a turn, or an error when there are none (the arena never asks a bot to pass). */
export function turnCandidates(state: Turn): { position: Position; rules: RulesOptions; moves: Candidate[] } {
  const position = positionOf(state);
  const rules = rulesOf(state);
  const moves = candidates(position, rules);
  if (moves.length === 0) throw new NoMoveError(`${state.you} has no legal move on this board`);
  return { position, rules, moves };
}

/** The state leaves the bot no move: a bad request, not a bot bug. */
export class NoMoveError extends Error {
  override readonly name = 'NoMoveError';
}
