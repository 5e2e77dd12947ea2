// The board view: an 8x8 grid drawn once, with files a–h across the top and ranks 1–8 down the left
// (rank 1 at the top, as the arena's notation prints it). Each render only switches classes.
import { el } from './common.js';
import { FILES, squareName } from './replay.js';

/**
 * Draws the empty grid inside `container`: labels, and 64 cells (a1 first) each holding a disc span,
 * the cell's `data-square` naming it. Answers the cells; each view paints them its own way.
 *
 * @returns {{ cell: HTMLElement, disc: HTMLElement }[]}
 */
export function boardGrid(container) {
  const grid = el('div', { class: 'board', 'aria-hidden': 'true' });
  grid.append(el('span', { class: 'label corner' }));
  for (const file of FILES) grid.append(el('span', { class: 'label file' }, file));
  const cells = [];
  for (let rank = 0; rank < 8; rank++) {
    grid.append(el('span', { class: 'label rank' }, String(rank + 1)));
    for (let file = 0; file < 8; file++) {
      const disc = el('span', { class: 'disc' });
      const cell = el(
        'span',
        {
          class: `cell${rank === 0 ? ' top' : ''}${file === 0 ? ' left' : ''}`,
          dataset: { square: squareName(rank * 8 + file) },
        },
        disc,
      );
      cells.push({ cell, disc });
      grid.append(cell);
    }
  }
  container.replaceChildren(grid);
  return cells;
}

/**
 * Builds the board inside `container` and returns `render(board, { placed, flips })`, where `board`
 * holds 64 'black' | 'white' | null and `placed`/`flips` are squares to mark on the shown move.
 */
export function createBoard(container) {
  const cells = boardGrid(container);

  return function render(board, marks = {}) {
    const flips = new Set(marks.flips ?? []);
    for (let index = 0; index < 64; index++) {
      const { cell, disc } = cells[index];
      const color = board[index];
      disc.className = color ? `disc ${color}` : 'disc';
      const square = squareName(index);
      cell.classList.toggle('placed', square === marks.placed);
      cell.classList.toggle('flipped', flips.has(square));
    }
  };
}

/** A text version of a board for screen readers: each side's squares. */
export function describeBoard(board) {
  const of = (color) =>
    board
      .map((disc, index) => (disc === color ? squareName(index) : null))
      .filter(Boolean)
      .join(', ') || 'none';
  return `Black: ${of('black')}. White: ${of('white')}.`;
}
