/**
 * Tic-tac-toe behind the game seam: a second game that exists only to prove the arena plays any
 * `Game`, not just Reversi. 3×3 squares a1..c3 (files a–c, ranks 1–3), black is X and moves first,
 * white is O; three in a row wins, a full board without one is a draw. No passes, no directions,
 * no options. A result's counts are the marks each side placed.
 */

import { type Game, otherSide, type Side, type SideCounts } from '../../src/game/index.ts';

export interface TicTacToeState {
  /** a1, b1, c1, a2, …, c3: who marked each square. */
  readonly cells: readonly (Side | null)[];
  readonly toMove: Side;
}

/** Tic-tac-toe has no rules options. */
export type TicTacToeOptions = Readonly<Record<string, never>>;

const FILES = 'abc';
const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
] as const;
const NO_OPTIONS: TicTacToeOptions = Object.freeze({});

const squareName = (index: number) => `${FILES[index % 3]}${Math.floor(index / 3) + 1}`;
const squareIndex = (name: string) =>
  /^[a-c][1-3]$/.test(name) ? FILES.indexOf(name[0]!) + 3 * (Number(name[1]) - 1) : -1;

function winnerOf(cells: TicTacToeState['cells']): Side | null {
  for (const [a, b, c] of LINES) {
    const side = cells[a];
    if (side && side === cells[b] && side === cells[c]) return side;
  }
  return null;
}

const isOver = (state: TicTacToeState) =>
  winnerOf(state.cells) !== null || state.cells.every((cell) => cell !== null);

function counts(state: TicTacToeState): SideCounts {
  const marks = (side: Side) => state.cells.filter((cell) => cell === side).length;
  return { black: marks('black'), white: marks('white') };
}

export const ticTacToe: Game<TicTacToeState, TicTacToeOptions> = {
  id: 'tictactoe',
  defaultOptions: NO_OPTIONS,
  // Keys it does not know (a match's time control, Reversi's options) are dropped, as Reversi drops them.
  options: () => NO_OPTIONS,
  initialState: () => ({ cells: Array(9).fill(null), toMove: 'black' }),
  openingActions: () => [],
  toMove: (state) => state.toMove,
  legalActions: (state) =>
    isOver(state) ? [] : state.cells.flatMap((cell, index) => (cell === null ? [squareName(index)] : [])),
  mustPass: () => false,
  pass() {
    throw new Error('tic-tac-toe has no passes');
  },
  apply(state, { action }) {
    if (isOver(state)) return { ok: false, message: 'the game is over' };
    const index = squareIndex(action);
    if (index < 0) return { ok: false, message: `not a square: ${action}` };
    if (state.cells[index] !== null) return { ok: false, message: `${action} is taken` };
    const cells = state.cells.map((cell, at) => (at === index ? state.toMove : cell));
    return { ok: true, state: { cells, toMove: otherSide(state.toMove) }, flips: [] };
  },
  recordsDirection: () => false,
  choosesColour: false,
  isOver,
  outcome: (state) => ({ winner: winnerOf(state.cells), counts: counts(state) }),
  counts,
  boardRows: (state) =>
    [0, 3, 6].map((row) =>
      state.cells
        .slice(row, row + 3)
        .map((cell) => (cell === 'black' ? 'X' : cell === 'white' ? 'O' : '.'))
        .join(''),
    ),
};
