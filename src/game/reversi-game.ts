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
  openingById,
  openingMoves,
  openingPosition,
  outcome,
  type Position,
  play,
  RulesError,
  type RulesOptions,
  rulesOptions,
  STANDARD_OPENING,
} from '../reversi/index.ts';
import type { Game } from './game.ts';

/** Reversi's options: the engine's rules and the balanced opening a match starts from, if any. */
export interface ReversiOptions extends RulesOptions {
  /** An opening id of src/reversi/openings; absent for the standard start (`standard` reads as absent). */
  readonly opening?: string;
}

/**
 * Reversi: the position is the engine's `Position`, the options its `RulesOptions` and an opening;
 * an action is a square a1..h8 and, under single-direction capture, the direction of the one line
 * to flip. `options` refuses an unknown opening, and an opening under rules it cannot be played in
 * (single-direction capture), with a `RulesError` (`reversi/invalid-rules`).
 *
 * @example
 * const options = reversi.options({ captureRule: 'single-direction', timeLimitMs: 1000 }); // time dropped
 * reversi.legalActions(reversi.initialState(options)); // ['e3', 'f4', 'c5', 'd6']
 * reversi.openingActions(reversi.options({ opening: 'o-1ea3b3b1' })); // [{ action: 'f4' }, { action: 'd3' }, …]
 */
export const reversi: Game<Position, ReversiOptions> & { readonly id: 'reversi' } = {
  id: 'reversi',
  defaultOptions: DEFAULT_RULES,
  options(rules = {}) {
    const base = rulesOptions({
      firstPlayer: rules.firstPlayer,
      captureRule: rules.captureRule,
      scoring: rules.scoring,
    });
    const opening = openingById(rules.opening ?? STANDARD_OPENING.id);
    if (opening === undefined) {
      throw new RulesError('reversi/invalid-rules', `no opening has the id ${JSON.stringify(rules.opening)}`);
    }
    if (opening.moves.length === 0) return base;
    openingPosition(opening, base); // throws for rules the opening cannot be played under
    return Object.freeze({ ...base, opening: opening.id });
  },
  initialState: (options) => initialPosition(options),
  openingActions(options) {
    const opening = options.opening === undefined ? undefined : openingById(options.opening);
    return opening === undefined ? [] : openingMoves(opening, options).map((action) => ({ action }));
  },
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
  choosesColour: false,
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
