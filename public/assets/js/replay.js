// Replaying a recorded match, with no rules engine: the arena recorded every move with the squares it
// flipped, so each ply is "place the mover's disc, turn the listed discs over". Pure: no DOM, no I/O
// (the unit test imports it in Node).

export const FILES = 'abcdefgh';

/** `a1` → 0, `h1` → 7, `a2` → 8 … `h8` → 63 (rank 1 is the top row). */
export function squareIndex(square) {
  return (square.charCodeAt(1) - 49) * 8 + (square.charCodeAt(0) - 97);
}

export function squareName(index) {
  return `${FILES[index % 8]}${Math.floor(index / 8) + 1}`;
}

/** The start: white on d4 and e5, black on d5 and e4. 64 entries of 'black' | 'white' | null. */
export function startBoard() {
  const board = new Array(64).fill(null);
  board[squareIndex('d4')] = 'white';
  board[squareIndex('e5')] = 'white';
  board[squareIndex('d5')] = 'black';
  board[squareIndex('e4')] = 'black';
  return board;
}

/**
 * The board after one more move record `{ player, square, flips }`: a pass changes nothing.
 * Does not modify `board`.
 */
export function applyMove(board, move) {
  const next = board.slice();
  if (move.square === 'pass') return next;
  next[squareIndex(move.square)] = move.player;
  for (const square of move.flips) next[squareIndex(square)] = move.player;
  return next;
}

/**
 * Every position of a game: `boards[k]` is the board after `k` plies (`boards[0]` the start), so
 * `boards.length === moves.length + 1`. Pass `from` (an earlier result) to extend it with new moves
 * without replaying the old ones.
 * @example replayBoards([{ ply: 1, player: 'white', square: 'e3', flips: ['e4'], latencyMs: 3 }])
 */
export function replayBoards(moves, from = [startBoard()]) {
  const boards = from.slice(0, moves.length + 1);
  for (let ply = boards.length; ply <= moves.length; ply++) {
    boards.push(applyMove(boards[ply - 1], moves[ply - 1]));
  }
  return boards;
}

/** `{ black, white }` disc counts of a board. */
export function countDiscs(board) {
  let black = 0;
  let white = 0;
  for (const disc of board) {
    if (disc === 'black') black++;
    else if (disc === 'white') white++;
  }
  return { black, white };
}

/**
 * Who moves after `ply` plies: the next recorded mover when there is one, else the other side of the
 * last mover (passes are recorded, so turns alternate), else `firstPlayer`.
 */
export function toMoveAfter(moves, ply, firstPlayer) {
  if (ply < moves.length) return moves[ply].player;
  if (ply === 0) return firstPlayer;
  return moves[ply - 1].player === 'black' ? 'white' : 'black';
}
