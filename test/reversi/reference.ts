/**
 * A deliberately simple reference implementation of the rule sheet, written to be obviously right
 * rather than fast: 64 cells in an array, one loop per direction. The property tests hold the
 * bitboard engine to it. It shares no code with src/reversi.
 */

export type Cell = 'B' | 'W' | '.';
export type RefColor = 'black' | 'white';

export interface RefState {
  readonly cells: readonly Cell[]; // index = rank * 8 + file, rank 0 = rank 1 (top), file 0 = a
  readonly toMove: RefColor;
}

/** Compass directions on the printed board: north is toward rank 1. */
export const REF_DIRECTIONS: readonly { name: string; df: number; dr: number }[] = [
  { name: 'n', df: 0, dr: -1 },
  { name: 'ne', df: 1, dr: -1 },
  { name: 'e', df: 1, dr: 0 },
  { name: 'se', df: 1, dr: 1 },
  { name: 's', df: 0, dr: 1 },
  { name: 'sw', df: -1, dr: 1 },
  { name: 'w', df: -1, dr: 0 },
  { name: 'nw', df: -1, dr: -1 },
];

const disc = (color: RefColor): Cell => (color === 'black' ? 'B' : 'W');
const other = (color: RefColor): RefColor => (color === 'black' ? 'white' : 'black');

export function refName(index: number): string {
  return 'abcdefgh'[index % 8]! + String(Math.floor(index / 8) + 1);
}

export function refFromRows(rows: readonly string[], toMove: RefColor): RefState {
  return { cells: rows.join('').split('') as Cell[], toMove };
}

export function refRows(state: RefState): string[] {
  const rows: string[] = [];
  for (let rank = 0; rank < 8; rank++) rows.push(state.cells.slice(rank * 8, rank * 8 + 8).join(''));
  return rows;
}

export function refStart(firstPlayer: RefColor): RefState {
  const cells: Cell[] = new Array(64).fill('.');
  cells[3 * 8 + 3] = 'W'; // d4
  cells[4 * 8 + 4] = 'W'; // e5
  cells[4 * 8 + 3] = 'B'; // d5
  cells[3 * 8 + 4] = 'B'; // e4
  return { cells, toMove: firstPlayer };
}

/** For each direction, the cells that would flip along it if `color` placed at `index` (maybe empty). */
export function refLines(cells: readonly Cell[], color: RefColor, index: number): Map<string, number[]> {
  const lines = new Map<string, number[]>();
  if (cells[index] !== '.') return lines;
  const file = index % 8;
  const rank = Math.floor(index / 8);
  for (const { name, df, dr } of REF_DIRECTIONS) {
    const run: number[] = [];
    let f = file + df;
    let r = rank + dr;
    while (f >= 0 && f < 8 && r >= 0 && r < 8 && cells[r * 8 + f] === disc(other(color))) {
      run.push(r * 8 + f);
      f += df;
      r += dr;
    }
    const closed = f >= 0 && f < 8 && r >= 0 && r < 8 && cells[r * 8 + f] === disc(color);
    if (closed && run.length > 0) lines.set(name, run);
  }
  return lines;
}

export function refMovesFor(cells: readonly Cell[], color: RefColor): number[] {
  const moves: number[] = [];
  for (let i = 0; i < 64; i++) if (refLines(cells, color, i).size > 0) moves.push(i);
  return moves;
}

export function refLegalMoves(state: RefState): number[] {
  return refMovesFor(state.cells, state.toMove);
}

export function refGameOver(state: RefState): boolean {
  return refMovesFor(state.cells, 'black').length === 0 && refMovesFor(state.cells, 'white').length === 0;
}

export function refMustPass(state: RefState): boolean {
  return refLegalMoves(state).length === 0 && !refGameOver(state);
}

/** Plays a placement; `direction` set means only that line flips (single-direction capture). */
export function refPlay(
  state: RefState,
  index: number,
  direction?: string,
): { state: RefState; flips: number[] } {
  const lines = refLines(state.cells, state.toMove, index);
  if (lines.size === 0) throw new Error(`reference: ${refName(index)} is not a move`);
  const flips: number[] = [];
  for (const [name, run] of lines) if (direction === undefined || direction === name) flips.push(...run);
  const cells = [...state.cells];
  cells[index] = disc(state.toMove);
  for (const i of flips) cells[i] = disc(state.toMove);
  return { state: { cells, toMove: other(state.toMove) }, flips: flips.sort((a, b) => a - b) };
}

export function refPass(state: RefState): RefState {
  return { cells: state.cells, toMove: other(state.toMove) };
}

/** Perft in the Edax convention: a pass is a ply, a finished game has no children. */
export function refPerft(state: RefState, depth: number): number {
  if (depth === 0) return 1;
  const moves = refLegalMoves(state);
  if (moves.length === 0) return refGameOver(state) ? 0 : refPerft(refPass(state), depth - 1);
  let nodes = 0;
  for (const m of moves) nodes += refPerft(refPlay(state, m).state, depth - 1);
  return nodes;
}
