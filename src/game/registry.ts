/**
 * The games the arena plays, by id. Reversi and the solo game are registered here; tests
 * register their own (a game is pure data and functions, so one shared table is enough, as a
 * Battlesnake ruleset is looked up by name). Every layer that plays a match asks `gameFor(match.game)`.
 */

import type { AnyGame, Game } from './game.ts';
import { reversi } from './reversi-game.ts';
import { solo } from './solo-game.ts';

/**
 * The game of a match that names none: records stored before matches carried a game id, and match
 * records built in memory without one. The store's codec reads a missing id as this one too.
 */
export const DEFAULT_GAME_ID = reversi.id;

const games = new Map<string, AnyGame>([
  [reversi.id, reversi],
  [solo.id, solo as AnyGame],
]);

/** Asked for a game id nobody registered: a corrupt record, or a process missing a registration. */
export class UnknownGameError extends Error {
  override readonly name = 'UnknownGameError';
  readonly code = 'game/unknown';

  constructor(readonly gameId: string) {
    super(`no game is registered with the id ${JSON.stringify(gameId)}`);
  }
}

/**
 * Makes `game` playable by its id. Registering the same module again is a no-op; a different game
 * under a taken id throws, so one id never means two games.
 *
 * @example
 * registerGame(ticTacToe);
 * gameFor('tictactoe') === ticTacToe; // true
 */
export function registerGame<State, Options>(game: Game<State, Options>): void {
  const taken = games.get(game.id);
  if (taken !== undefined && taken !== game) throw new Error(`another game is registered as ${game.id}`);
  games.set(game.id, game as AnyGame);
}

/**
 * The game registered as `id`; a match without a game id is Reversi's (`DEFAULT_GAME_ID`). Throws
 * `UnknownGameError` for an id nobody registered.
 *
 * @example
 * gameFor(match.game).legalActions(position);
 */
export function gameFor(id: string = DEFAULT_GAME_ID): AnyGame {
  const game = games.get(id);
  if (game === undefined) throw new UnknownGameError(id);
  return game;
}
