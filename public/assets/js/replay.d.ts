// Types for replay.js, so the TypeScript tests can import the browser's own replay code.
export type Disc = 'black' | 'white' | null;
export interface RecordedMove {
  readonly player: 'black' | 'white';
  readonly square: string;
  readonly flips: readonly string[];
}
export const FILES: string;
export function squareIndex(square: string): number;
export function squareName(index: number): string;
export function startBoard(): Disc[];
export function applyMove(board: readonly Disc[], move: RecordedMove): Disc[];
export function replayBoards(moves: readonly RecordedMove[], from?: readonly Disc[][]): Disc[][];
export function countDiscs(board: readonly Disc[]): { black: number; white: number };
export function toMoveAfter(
  moves: readonly RecordedMove[],
  ply: number,
  firstPlayer: 'black' | 'white',
): 'black' | 'white';
