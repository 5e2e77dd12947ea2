/**
 * Reversi behind the game seam: the arena's one production game, a thin wrapper over the rules
 * engine in src/reversi (which knows nothing of the arena).
 */

import {
  boardText,
  DEFAULT_RULES,
  type Direction,
  discCounts,
  initialPosition,
  isGameOver,
  legalMoves,
  mustPass,
  outcome,
  type Position,
  play,
  type RulesOptions,
  rulesOptions,
} from '../reversi/index.ts';
import type { Game } from './game.ts';

/**
 * Reversi: the position is the engine's `Position`, the options its `RulesOptions`; an action is a
 * square a1..h8 and, under single-direction capture, the direction of the one line to flip.
 *
 * @example
 * const options = reversi.options({ captureRule: 'single-direction', timeLimitMs: 1000 }); // time dropped
 * reversi.legalActions(reversi.initialState(options)); // ['e3', 'f4', 'c5', 'd6']
 */
export const reversi: Game<Position, RulesOptions> & { readonly id: 'reversi' } = {
  id: 'reversi',
  defaultOptions: DEFAULT_RULES,
  options: (rules = {}) =>
    rulesOptions({ firstPlayer: rules.firstPlayer, captureRule: rules.captureRule, scoring: rules.scoring }),
  initialState: (options) => initialPosition(options),
  toMove: (position) => position.toMove,
  legalActions: (position) => legalMoves(position),
  mustPass: (position) => mustPass(position),
  pass(position) {
    const passed = play(position, { square: 'pass' }, DEFAULT_RULES);
    if (!passed.ok) throw passed.error;
    return passed.position;
  },
  apply(position, { action, direction }, options) {
    // The engine reads `direction` only under single-direction capture, and checks the name itself.
    const move = { square: action, ...(direction ? { direction: direction as Direction } : {}) };
    const played = play(position, move, options);
    return played.ok
      ? { ok: true, state: played.position, flips: played.flips }
      : { ok: false, message: played.error.message };
  },
  recordsDirection: (options) => options.captureRule === 'single-direction',
  isOver: (position) => isGameOver(position),
  outcome(position, options) {
    const { winner, discs } = outcome(position, options);
    return { winner, counts: discs };
  },
  counts(position) {
    const { black, white } = discCounts(position);
    return { black, white };
  },
  boardRows: (position) => boardText(position),
};
