/**
 * The Reversi rules engine: pure functions on immutable positions, no I/O, no clock, no randomness.
 * The HTTP API, the workers and the example bots import from here only.
 */

export { legalMoveMask, popcount } from './bitboard.ts';
export { RULES_ERROR_CODES, RulesError, type RulesErrorCode } from './errors.ts';
export { flipMask } from './flips.ts';
export {
  isGameOver,
  legalMoves,
  type Move,
  mustPass,
  outcome,
  type PlayResult,
  play,
  trappingDirections,
} from './game.ts';
export {
  canonicalKey,
  type Opening,
  openingById,
  openingMoves,
  openingPosition,
  openings,
  STANDARD_OPENING,
  transformPosition,
  transformSquare,
} from './openings.ts';
export { type Color, DEFAULT_RULES, opponent, type RulesOptions, rulesOptions } from './options.ts';
export { perft, perftBoards } from './perft.ts';
export {
  boardRowsFromObf,
  boardText,
  discCounts,
  initialPosition,
  type Position,
  positionFromBoards,
  positionFromBoardText,
} from './position.ts';
export {
  DIRECTIONS,
  type Direction,
  directionIndex,
  maskSquares,
  type Square,
  squareIndex,
  squareName,
} from './squares.ts';
