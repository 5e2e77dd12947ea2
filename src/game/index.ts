/**
 * The game seam: the `Game` interface, the registry by id, and Reversi's module. The arena's
 * layers import games from here only.
 */

export {
  type ActionChoices,
  type AnyGame,
  type Applied,
  actionChoices,
  type Game,
  type GameAction,
  type Outcome,
  otherSide,
  recordedChoices,
  type Side,
  type SideCounts,
} from './game.ts';
export { DEFAULT_GAME_ID, gameFor, registerGame, UnknownGameError } from './registry.ts';
export { type ReversiOptions, reversi } from './reversi-game.ts';
export {
  SOLO_GAME_ID,
  SOLO_SCORINGS,
  SOLO_SIDE,
  type SoloLayoutBytes,
  type SoloOptions,
  SoloRulesError,
  solo,
  useSoloLayouts,
} from './solo-game.ts';
