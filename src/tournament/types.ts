/**
 * The values a tournament is made of, and the checks every entry point makes on them.
 *
 * Sides carry the arena's colour names, 'black' and 'white' (src/game's `Side`). They are spelled
 * out here rather than imported: src/game stands on this layer's floor, and a tournament needs no
 * game's rules, only who had which colour.
 */

export type Side = 'black' | 'white';

/** How a game ended: the side that won, or a draw. */
export type GameResult = Side | 'draw';

/** A bot's score from one game: 1 win, ½ draw, 0 loss. */
export type Score = 0 | 0.5 | 1;

export type TournamentFormat = 'round-robin' | 'gauntlet' | 'swiss';

/** 2 is a paired game: the same pairing twice, colours swapped. */
export type GamesPerPairing = 1 | 2;

/** One game to play. */
export interface Pairing {
  readonly white: string;
  readonly black: string;
}

/** One round of a schedule: every bot in it plays at most once. */
export interface Round {
  /** From 1. */
  readonly number: number;
  /** Board order: the first pairing is board 1. */
  readonly pairings: readonly Pairing[];
  /**
   * The bot that sits this round out, or null. In a round robin that is the sit-out of an odd
   * field (everyone has one, so it scores nothing); in a Swiss round it is a scoring bye.
   */
  readonly bye: string | null;
}

/** One finished game. */
export interface TournamentGame extends Pairing {
  readonly result: GameResult;
  /** Set when a side's fault ended the game: it scores, but says nothing of the winner's strength. */
  readonly forfeit?: true;
}

/** What a tournament has produced so far. */
export interface Results {
  /** In the order they were played (Swiss colour rules read the order). */
  readonly games: readonly TournamentGame[];
  /**
   * Swiss byes given, one bot id per bye; each scores 1 point and is no game. Leave it out for a
   * round robin or a gauntlet, whose sit-outs score nothing.
   */
  readonly byes?: readonly string[];
}

/**
 * What `bot` made of `game`: 1, ½ or 0; null when it did not play in it.
 *
 * @example
 * scoreOf({ white: 'a', black: 'b', result: 'white' }, 'a'); // 1
 */
export function scoreOf(game: TournamentGame, bot: string): Score | null {
  if (bot !== game.white && bot !== game.black) return null;
  if (game.result === 'draw') return 0.5;
  return (game.result === 'white') === (bot === game.white) ? 1 : 0;
}

/** Throws a RangeError unless `entrants` are at least `minimum` distinct, non-empty ids. */
export function requireEntrants(entrants: readonly string[], minimum = 2): void {
  if (entrants.length < minimum) {
    throw new RangeError(`a tournament needs at least ${minimum} entrants, got ${entrants.length}`);
  }
  const seen = new Set<string>();
  for (const id of entrants) {
    if (id === '') throw new RangeError('an entrant id is empty');
    if (seen.has(id)) throw new RangeError(`entrant ${id} is listed twice`);
    seen.add(id);
  }
}

/** Throws a RangeError unless `n` is 1 or 2. */
export function requireGamesPerPairing(n: number): asserts n is GamesPerPairing {
  if (n !== 1 && n !== 2) throw new RangeError(`gamesPerPairing must be 1 or 2, got ${n}`);
}

/**
 * Throws a RangeError for a game or a bye naming a bot that is not an entrant, a bot playing
 * itself, or a result that is not 'white', 'black' or 'draw'.
 */
export function requireKnownBots(entrants: readonly string[], results: Results): void {
  const known = new Set(entrants);
  for (const game of results.games) {
    for (const bot of [game.white, game.black]) {
      if (!known.has(bot)) throw new RangeError(`a game names ${bot}, who is not an entrant`);
    }
    if (game.white === game.black) throw new RangeError(`${game.white} cannot play itself`);
    if (game.result !== 'white' && game.result !== 'black' && game.result !== 'draw') {
      throw new RangeError(`a game's result is ${String(game.result)}, not 'white', 'black' or 'draw'`);
    }
  }
  for (const bot of results.byes ?? []) {
    if (!known.has(bot)) throw new RangeError(`a bye names ${bot}, who is not an entrant`);
  }
}
