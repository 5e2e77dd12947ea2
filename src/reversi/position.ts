/**
 * Positions: who owns which square and who is to move. A position is a frozen plain object holding
 * each colour's bitboard as two signed 32-bit halves (see `bitboard.ts` for the bit layout), so it is
 * cheap to create, safe to share between games, and comparable with a deep equality.
 */

import { popcount } from './bitboard.ts';
import { RulesError } from './errors.ts';
import { type Color, DEFAULT_RULES, type RulesOptions } from './options.ts';

/** An immutable game position. The halves are signed 32-bit integers: bit 31 of a half is negative. */
export interface Position {
  /** Black discs on a1..h4 (bit `rank * 8 + file`). */
  readonly blackLo: number;
  /** Black discs on a5..h8 (bit `(rank - 4) * 8 + file`). */
  readonly blackHi: number;
  /** White discs on a1..h4. */
  readonly whiteLo: number;
  /** White discs on a5..h8. */
  readonly whiteHi: number;
  /** The player whose turn it is; after a move this is always the other player, even if it must pass. */
  readonly toMove: Color;
}

/**
 * Builds a position from raw bitboard halves, for bots and tools that work on bitboards directly.
 * Throws a `RulesError` (`reversi/malformed-board`) if a square holds discs of both colours.
 *
 * @example
 * // the start position, white to move
 * positionFromBoards(1 << 28, 1 << 3, 1 << 27, 1 << 4, 'white');
 */
export function positionFromBoards(
  blackLo: number,
  blackHi: number,
  whiteLo: number,
  whiteHi: number,
  toMove: Color,
): Position {
  if ((blackLo & whiteLo) !== 0 || (blackHi & whiteHi) !== 0) {
    throw new RulesError('reversi/malformed-board', 'a square holds both a black and a white disc');
  }
  if (toMove !== 'black' && toMove !== 'white') {
    throw new RulesError('reversi/malformed-board', `no player called ${String(toMove)}`);
  }
  return Object.freeze({
    blackLo: blackLo | 0,
    blackHi: blackHi | 0,
    whiteLo: whiteLo | 0,
    whiteHi: whiteHi | 0,
    toMove,
  });
}

/**
 * The start position: white on d4 and e5, black on d5 and e4, `rules.firstPlayer` to move.
 *
 * @example
 * initialPosition().toMove; // 'white'
 * initialPosition(rulesOptions({ firstPlayer: 'black' })).toMove; // 'black'
 */
export function initialPosition(rules: RulesOptions = DEFAULT_RULES): Position {
  // d5 = bit 35 (high bit 3), e4 = bit 28; d4 = bit 27, e5 = bit 36 (high bit 4).
  return positionFromBoards(1 << 28, 1 << 3, 1 << 27, 1 << 4, rules.firstPlayer);
}

/**
 * Counts black discs, white discs and empty squares.
 *
 * @example
 * discCounts(initialPosition()); // { black: 2, white: 2, empty: 60 }
 */
export function discCounts(pos: Position): { black: number; white: number; empty: number } {
  const black = popcount(pos.blackLo, pos.blackHi);
  const white = popcount(pos.whiteLo, pos.whiteHi);
  return { black, white, empty: 64 - black - white };
}

/** A byte's bits read as base-3 digits, so that `TERNARY[black] + 2 * TERNARY[white]` numbers a rank. */
const TERNARY = new Uint16Array(256);
for (let byte = 1; byte < 256; byte++) TERNARY[byte] = TERNARY[byte >> 1]! * 3 + (byte & 1);

/**
 * One string per rank content, filled on first use ('' = not yet built): boardText runs for every
 * state sent to a bot, and building its rows cell by cell allocated kilobytes per call. A rank has
 * 3^8 = 6,561 contents, so a base-3 index keeps the table 10 times smaller than one keyed by both bytes.
 */
const RANK_TEXT: string[] = Array.from({ length: 6561 }, () => '');

function rankText(black: number, white: number): string {
  // A square of both colours (possible only in a Position not made by `positionFromBoards`) reads 'B'.
  const own = white & ~black;
  const key = TERNARY[black]! + 2 * TERNARY[own]!;
  let text = RANK_TEXT[key]!;
  if (text === '') {
    for (let file = 0; file < 8; file++) {
      text += ((black >> file) & 1) !== 0 ? 'B' : ((own >> file) & 1) !== 0 ? 'W' : '.';
    }
    RANK_TEXT[key] = text;
  }
  return text;
}

/**
 * The board as 8 strings of `B`, `W` and `.`, rank 1 first, each string files a..h.
 *
 * @example
 * boardText(initialPosition())[3]; // '...WB...' (rank 4: d4 white, e4 black)
 */
export function boardText(pos: Position): string[] {
  const { blackLo: bl, blackHi: bh, whiteLo: wl, whiteHi: wh } = pos;
  // Each half holds four ranks, the lowest byte first; `>>> 24` needs no mask, as it shifts in zeros.
  return [
    rankText(bl & 0xff, wl & 0xff),
    rankText((bl >>> 8) & 0xff, (wl >>> 8) & 0xff),
    rankText((bl >>> 16) & 0xff, (wl >>> 16) & 0xff),
    rankText(bl >>> 24, wl >>> 24),
    rankText(bh & 0xff, wh & 0xff),
    rankText((bh >>> 8) & 0xff, (wh >>> 8) & 0xff),
    rankText((bh >>> 16) & 0xff, (wh >>> 16) & 0xff),
    rankText(bh >>> 24, wh >>> 24),
  ];
}

/**
 * Parses board text (the inverse of `boardText`). Throws a `RulesError` (`reversi/malformed-board`)
 * unless `rows` is exactly 8 strings of exactly 8 characters from `B`, `W`, `.`. Any disc layout is
 * accepted, including ones unreachable in play, so tests and puzzles can set up what they need.
 *
 * @example
 * const pos = positionFromBoardText(['BW......', ...Array(7).fill('........')], 'black');
 */
export function positionFromBoardText(rows: readonly string[], toMove: Color): Position {
  if (!Array.isArray(rows) || rows.length !== 8) {
    throw new RulesError('reversi/malformed-board', 'a board is 8 rows');
  }
  const halves = [0, 0, 0, 0]; // black lo, black hi, white lo, white hi
  rows.forEach((row, rank) => {
    if (typeof row !== 'string' || !/^[BW.]{8}$/.test(row)) {
      throw new RulesError('reversi/malformed-board', `rank ${rank + 1} is not 8 of B, W, .: ${String(row)}`);
    }
    for (let file = 0; file < 8; file++) {
      const cell = row[file];
      if (cell === '.') continue;
      const index = rank * 8 + file;
      const slot = (cell === 'B' ? 0 : 2) + (index >> 5);
      halves[slot]! |= 1 << (index & 31);
    }
  });
  return positionFromBoards(halves[0]!, halves[1]!, halves[2]!, halves[3]!, toMove);
}

/**
 * Board text from the one-line notation of Othello files (OBF, FForum) and the perft CLI: 64
 * characters for a1, b1, …, h8 with `X` black, `O` white, `-` empty. Throws a `RulesError`
 * (`reversi/malformed-board`) for anything else.
 *
 * @example
 * boardRowsFromObf('-'.repeat(27) + 'OX' + '-'.repeat(6) + 'XO' + '-'.repeat(27)) // 8 rows, rank 1 first
 */
export function boardRowsFromObf(board: string): string[] {
  if (!/^[XO-]{64}$/.test(board)) {
    throw new RulesError(
      'reversi/malformed-board',
      'a board line is 64 characters of X, O, - (a1, b1, …, h8)',
    );
  }
  const text = board.replace(/X/g, 'B').replace(/O/g, 'W').replace(/-/g, '.');
  return Array.from({ length: 8 }, (_, rank) => text.slice(rank * 8, rank * 8 + 8));
}
