// The board a person plays on (/play): 64 buttons, rank 1 at the top as the arena prints it, each named
// by its square; the arrow keys move along it, so the whole board is one tab stop. The games draw on it
// (discs, tokens, marks): this module only builds it and moves the focus.
import { el } from './common.js';
import { FILES, squareName } from './replay.js';

const STEPS = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -8, ArrowDown: 8 };

/**
 * Builds the board inside `container`; a press on a square calls `onSquare(square)`. Answers the 64
 * cells, a1 first, each holding one `.disc` span to draw in.
 * @example const cells = createPlayBoard($('board'), { onSquare: (square) => play(square) });
 */
export function createPlayBoard(container, { onSquare, label = 'Board' }) {
  const cells = [];
  let focus = 0;
  const grid = el('div', { class: 'board play-board', role: 'group', 'aria-label': label });
  grid.append(el('span', { class: 'label corner', 'aria-hidden': 'true' }));
  for (const file of FILES) grid.append(el('span', { class: 'label file', 'aria-hidden': 'true' }, file));
  for (let rank = 0; rank < 8; rank++) {
    grid.append(el('span', { class: 'label rank', 'aria-hidden': 'true' }, String(rank + 1)));
    for (let file = 0; file < 8; file++) {
      const index = rank * 8 + file;
      const square = squareName(index);
      const cell = el(
        'button',
        {
          type: 'button',
          class: `cell${rank === 0 ? ' top' : ''}${file === 0 ? ' left' : ''}`,
          dataset: { square },
          tabindex: index === 0 ? '0' : '-1',
          onclick: () => onSquare(square),
          onfocus: () => {
            focus = index;
          },
        },
        el('span', { class: 'disc' }),
      );
      cells.push(cell);
      grid.append(cell);
    }
  }
  // Arrow keys move along the board; Home and End to the ends of the rank; Enter and Space press.
  grid.addEventListener('keydown', (event) => {
    let next = focus;
    if (event.key in STEPS) {
      const step = STEPS[event.key];
      const file = focus % 8;
      if ((step === -1 && file === 0) || (step === 1 && file === 7)) return;
      next = focus + step;
    } else if (event.key === 'Home') next = focus - (focus % 8);
    else if (event.key === 'End') next = focus - (focus % 8) + 7;
    else return;
    if (next < 0 || next > 63) return;
    event.preventDefault();
    cells[focus].tabIndex = -1;
    cells[next].tabIndex = 0;
    cells[next].focus();
  });
  container.replaceChildren(grid);
  return cells;
}
