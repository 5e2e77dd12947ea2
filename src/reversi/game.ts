/**
 * The game step: legal moves, passes, the end, and `play`, the one function that advances a game.
 * All of it runs on the bitboard core that `perft` exercises.
 */

import { legalMoveMask } from './bitboard.ts';
import { RulesError } from './errors.ts';
import { flipMask, RAY_HI, RAY_LO } from './flips.ts';
import { type Color, opponent, type RulesOptions } from './options.ts';
import { discCounts, type Position, positionFromBoards } from './position.ts';
import {
  DIRECTIONS,
  type Direction,
  directionIndex,
  maskSquares,
  type Square,
  squareIndex,
} from './squares.ts';

/** A move: a placement (optionally naming the line to flip under single-direction capture) or a pass. */
export interface Move {
  readonly square: Square | 'pass';
  /** Only read under `captureRule: 'single-direction'`; ignored otherwise. */
  readonly direction?: Direction;
}

/** The result of `play`: the next position and the flipped squares (a1..h8 order), or why not. */
export type PlayResult = { ok: true; position: Position; flips: Square[] } | { ok: false; error: RulesError };

const OUT = new Int32Array(2);

/**
 * The halves of the side to move's discs, then of its opponent's: what the bitboard core takes. For
 * `play` and `trappingDirections`, once a move, where the tuple is nothing next to the squares they
 * return; `canPlace` runs several times a move and reads the halves itself.
 */
function moverAndOpponent(pos: Position): [pl: number, ph: number, ol: number, oh: number] {
  return pos.toMove === 'black'
    ? [pos.blackLo, pos.blackHi, pos.whiteLo, pos.whiteHi]
    : [pos.whiteLo, pos.whiteHi, pos.blackLo, pos.blackHi];
}

/**
 * True when the player to move (`mover`) or its opponent (`!mover`) can place; leaves the mask in OUT.
 * Reads the halves straight off the position: it runs several times a move, and a tuple of them
 * made garbage on every call.
 */
function canPlace(pos: Position, mover: boolean): boolean {
  if ((pos.toMove === 'black') === mover) {
    legalMoveMask(pos.blackLo, pos.blackHi, pos.whiteLo, pos.whiteHi, OUT);
  } else {
    legalMoveMask(pos.whiteLo, pos.whiteHi, pos.blackLo, pos.blackHi, OUT);
  }
  return (OUT[0]! | OUT[1]!) !== 0;
}

/**
 * The squares where the player to move may place, in a1, b1, ..., h8 order. Empty when that player
 * must pass or the game is over.
 *
 * @example
 * legalMoves(initialPosition()); // ['e3', 'f4', 'c5', 'd6'] (white first under the default rules)
 */
export function legalMoves(pos: Position): Square[] {
  return canPlace(pos, true) ? maskSquares(OUT[0]!, OUT[1]!) : [];
}

/**
 * True when the player to move has no placing move but the opponent has one: the only legal move is
 * `{ square: 'pass' }`.
 *
 * @example
 * mustPass(initialPosition()); // false
 */
export function mustPass(pos: Position): boolean {
  return !canPlace(pos, true) && canPlace(pos, false);
}

/**
 * True when neither player can place a disc (a full board is one such case).
 *
 * @example
 * isGameOver(initialPosition()); // false
 */
export function isGameOver(pos: Position): boolean {
  return !canPlace(pos, true) && !canPlace(pos, false);
}

/**
 * The directions in which a disc of the player to move placed on `square` would trap a line, in
 * `DIRECTIONS` order (n, ne, e, se, s, sw, w, nw). Empty for an occupied square or a non-move. Throws
 * a `RulesError` (`reversi/malformed-square`) for a name that is not a square.
 *
 * @example
 * trappingDirections(initialPosition(), 'e3'); // ['s'] (white on e3 traps e4 against e5)
 */
export function trappingDirections(pos: Position, square: Square): Direction[] {
  const sq = squareIndex(square);
  if (sq < 0) throw new RulesError('reversi/malformed-square', `not a square: ${String(square)}`);
  const [pl, ph, ol, oh] = moverAndOpponent(pos);
  if (((sq < 32 ? pl | ol : ph | oh) & (1 << (sq & 31))) !== 0) return [];
  flipMask(pl, ph, ol, oh, sq, OUT);
  const fl = OUT[0]!;
  const fh = OUT[1]!;
  const trapping: Direction[] = [];
  for (let d = 0; d < 8; d++) {
    if (((fl & RAY_LO[sq * 8 + d]!) | (fh & RAY_HI[sq * 8 + d]!)) !== 0) trapping.push(DIRECTIONS[d]!);
  }
  return trapping;
}

function fail(code: RulesError['code'], message: string): PlayResult {
  return { ok: false, error: new RulesError(code, message) };
}

/**
 * Plays one move and returns the next position with the flipped squares, or the `RulesError` that
 * rejects the move. Never throws for a bad move and never changes `pos`: a bot's bad answer is a game
 * event for the caller to judge. Checks in this order: game over, pass, square name, occupied, traps
 * something, then (single-direction capture only) the direction.
 *
 * @example
 * const first = play(initialPosition(), { square: 'e3' }, DEFAULT_RULES);
 * if (first.ok) first.flips; // ['e4']
 */
export function play(pos: Position, move: Move, rules: RulesOptions): PlayResult {
  const [pl, ph, ol, oh] = moverAndOpponent(pos);
  const square: unknown = typeof move === 'object' && move !== null ? move.square : undefined;
  const next: Color = opponent(pos.toMove);
  if (!canPlace(pos, true)) {
    if (!canPlace(pos, false)) return fail('reversi/game-over', 'the game is over');
    if (square === 'pass') return { ok: true, position: withDiscs(pl, ph, ol, oh, next), flips: [] };
  } else if (square === 'pass') {
    return fail('reversi/pass-not-allowed', `${pos.toMove} has a move and cannot pass`);
  }
  const sq = squareIndex(square);
  if (sq < 0) return fail('reversi/malformed-square', `not a square: ${String(square)}`);
  const bit = 1 << (sq & 31);
  if (((sq < 32 ? pl | ol : ph | oh) & bit) !== 0) {
    return fail('reversi/occupied-square', `${String(square)} is occupied`);
  }
  flipMask(pl, ph, ol, oh, sq, OUT);
  let fl = OUT[0]!;
  let fh = OUT[1]!;
  if ((fl | fh) === 0) return fail('reversi/illegal-move', `${String(square)} traps no ${next} discs`);

  if (rules.captureRule === 'single-direction') {
    const named: unknown = move.direction;
    let line = -1;
    if (named !== undefined && named !== null) {
      line = directionIndex(named);
      const ray = line < 0 ? 0 : (fl & RAY_LO[sq * 8 + line]!) | (fh & RAY_HI[sq * 8 + line]!);
      if (ray === 0)
        return fail('reversi/invalid-direction', `${String(named)} traps nothing from ${square}`);
    } else {
      const trapping = trappingDirections(pos, square as Square);
      if (trapping.length > 1) {
        return fail(
          'reversi/direction-required',
          `${square} traps ${trapping.join(', ')}: name one direction`,
        );
      }
      line = DIRECTIONS.indexOf(trapping[0]!);
    }
    fl &= RAY_LO[sq * 8 + line]!;
    fh &= RAY_HI[sq * 8 + line]!;
  }

  const nl = sq < 32 ? pl | fl | bit : pl | fl;
  const nh = sq < 32 ? ph | fh : ph | fh | bit;
  return { ok: true, position: withDiscs(nl, nh, ol ^ fl, oh ^ fh, next), flips: maskSquares(fl, fh) };
}

/** A position from mover/opponent halves, `toMove` being the player who moves next (the old opponent). */
function withDiscs(pl: number, ph: number, ol: number, oh: number, toMove: Color): Position {
  return toMove === 'black'
    ? positionFromBoards(ol, oh, pl, ph, toMove)
    : positionFromBoards(pl, ph, ol, oh, toMove);
}

/**
 * Scores a position under `rules.scoring`; meant for a finished game (on an unfinished one it scores
 * the board as it stands). `discs`: each side's discs. `empties-to-winner`: the empty squares are
 * added to the winner's count, or split equally on a draw, so the two always sum to 64.
 *
 * @example
 * // a finished game with black 30, white 24 and 10 empty squares
 * outcome(finished, DEFAULT_RULES); // { winner: 'black', discs: { black: 30, white: 24 } }
 * outcome(finished, rulesOptions({ scoring: 'empties-to-winner' })); // { winner: 'black', discs: { black: 40, white: 24 } }
 */
export function outcome(
  pos: Position,
  rules: RulesOptions,
): { winner: Color | null; discs: { black: number; white: number } } {
  const { black, white, empty } = discCounts(pos);
  const winner: Color | null = black > white ? 'black' : white > black ? 'white' : null;
  if (rules.scoring !== 'empties-to-winner') return { winner, discs: { black, white } };
  if (winner === null) return { winner, discs: { black: black + empty / 2, white: white + empty / 2 } };
  return winner === 'black'
    ? { winner, discs: { black: black + empty, white } }
    : { winner, discs: { black, white: white + empty } };
}
