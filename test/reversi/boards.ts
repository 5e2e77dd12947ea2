/**
 * Test helper: a position from lists of squares, so that each test case names exactly the discs it is
 * about. Built on board text rather than bitboards, so a mistake in the bit layout cannot hide here.
 */

import { type Color, type Position, positionFromBoardText, type Square } from '../../src/reversi/index.ts';

export function boardWith(
  black: readonly Square[],
  white: readonly Square[],
  toMove: Color = 'black',
): Position {
  const cells = Array.from({ length: 8 }, () => Array<string>(8).fill('.'));
  const put = (square: Square, cell: string) => {
    cells[Number(square[1]) - 1]![square.charCodeAt(0) - 97] = cell;
  };
  for (const square of black) put(square, 'B');
  for (const square of white) put(square, 'W');
  return positionFromBoardText(
    cells.map((row) => row.join('')),
    toMove,
  );
}
