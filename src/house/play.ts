/**
 * Plays whole games between move-choosing functions with the rules engine directly (no HTTP): for
 * tests here and for simulations that want many games fast.
 */

import {
  boardText,
  type Color,
  initialPosition,
  isGameOver,
  legalMoves,
  mustPass,
  outcome,
  type Position,
  play,
  type RulesOptions,
} from '../reversi/index.ts';
import type { Action, Turn } from './turn.ts';

/** A player: anything that answers a turn. */
export type Chooser = (turn: Turn) => Action;

/** The turn a bot would get in `position` (only the fields the example bots read). */
export function turnOf(position: Position, rules: RulesOptions): Turn {
  return { you: position.toMove, board: boardText(position), rules: { ...rules } };
}

/**
 * Plays one game to the end; passes are played for the players. Throws if a chooser answers an
 * illegal move (the example bots never should).
 *
 * @example
 * playGame({ black: chooseGreedy, white: (turn) => chooseRandom(turn, seededRandom(1)) }, DEFAULT_RULES);
 * // { winner: 'black', discs: { black: 40, white: 24 }, plies: 60 }
 */
export function playGame(
  players: Readonly<Record<Color, Chooser>>,
  rules: RulesOptions,
): { winner: Color | null; discs: { black: number; white: number }; plies: number } {
  let position = initialPosition(rules);
  let plies = 0;
  while (!isGameOver(position)) {
    const move = mustPass(position) ? { square: 'pass' } : players[position.toMove](turnOf(position, rules));
    const result = play(
      position,
      'action' in move ? { square: move.action, direction: move.direction } : move,
      rules,
    );
    if (!result.ok) {
      throw new Error(
        `${position.toMove} played ${JSON.stringify(move)}: ${result.error.message} (${legalMoves(position)})`,
      );
    }
    position = result.position;
    plies++;
  }
  return { ...outcome(position, rules), plies };
}
