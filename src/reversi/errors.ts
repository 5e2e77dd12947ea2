/**
 * The one error class of the rules engine. Callers branch on `code`, never on the message: the codes
 * are part of the public contract (the HTTP layer maps them to problem types), the messages are not.
 */

/** Stable, namespaced error codes. */
export type RulesErrorCode =
  /** A square name that is not `a1`..`h8` (or a move that is not an object with a square). */
  | 'reversi/malformed-square'
  /** The placement square already holds a disc. */
  | 'reversi/occupied-square'
  /** The placement traps no line of opponent discs. */
  | 'reversi/illegal-move'
  /** `pass` was played while the mover had a placing move. */
  | 'reversi/pass-not-allowed'
  /** Single-direction capture: the placement traps several lines and no direction was named. */
  | 'reversi/direction-required'
  /** Single-direction capture: the named direction is not a direction or traps nothing. */
  | 'reversi/invalid-direction'
  /** A move was played on a finished game. */
  | 'reversi/game-over'
  /** Board text that is not 8 rows of 8 `B`, `W` or `.`, or discs of both colours on one square. */
  | 'reversi/malformed-board'
  /** Rules options with a value outside the documented ones. */
  | 'reversi/invalid-rules';

/** Every code, for exhaustive mappings and tests. */
export const RULES_ERROR_CODES: readonly RulesErrorCode[] = Object.freeze([
  'reversi/malformed-square',
  'reversi/occupied-square',
  'reversi/illegal-move',
  'reversi/pass-not-allowed',
  'reversi/direction-required',
  'reversi/invalid-direction',
  'reversi/game-over',
  'reversi/malformed-board',
  'reversi/invalid-rules',
] as const);

/**
 * A move or input that the rules reject. `play` returns it inside `{ ok: false }` rather than throwing,
 * so that a bad move from a bot is a game event; the parsers (`positionFromBoardText`,
 * `rulesOptions`) throw it.
 *
 * @example
 * const result = play(initialPosition(), { square: 'a1' }, DEFAULT_RULES);
 * if (!result.ok && result.error.code === 'reversi/illegal-move') {
 *   // the bot forfeits
 * }
 */
export class RulesError extends Error {
  override readonly name = 'RulesError';
  readonly code: RulesErrorCode;

  constructor(code: RulesErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
