import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyMove,
  countDiscs,
  type Disc,
  type RecordedMove,
  replayBoards,
  squareIndex,
  squareName,
  startBoard,
  toMoveAfter,
} from '../../public/assets/js/replay.js';
import {
  boardText,
  type Color,
  isGameOver,
  legalMoves,
  type Position,
  play,
  rulesOptions,
  initialPosition as start,
} from '../../src/reversi/index.ts';

const text = (board: readonly Disc[]) =>
  Array.from({ length: 8 }, (_, rank) =>
    board
      .slice(rank * 8, rank * 8 + 8)
      .map((disc) => (disc === 'black' ? 'B' : disc === 'white' ? 'W' : '.'))
      .join(''),
  );

/** A game played by the engine with choices from `picks`, recorded as the arena records moves. */
function engineGame(firstPlayer: Color, picks: number[]) {
  const rules = rulesOptions({ firstPlayer });
  let position: Position = start(rules);
  const moves: RecordedMove[] = [];
  const positions = [position];
  for (let i = 0; !isGameOver(position); i++) {
    const legal = legalMoves(position);
    const square = legal.length === 0 ? 'pass' : legal[(picks[i % picks.length] ?? 0) % legal.length]!;
    const result = play(position, { square }, rules);
    if (!result.ok) throw result.error;
    moves.push({ player: position.toMove, square, flips: result.flips });
    position = result.position;
    positions.push(position);
  }
  return { moves, positions };
}

describe('the browser replay (public/assets/js/replay.js)', () => {
  it('names squares as the arena does: files a–h, rank 1 first', () => {
    expect([squareIndex('a1'), squareIndex('h1'), squareIndex('a2'), squareIndex('h8')]).toEqual([
      0, 7, 8, 63,
    ]);
    expect(Array.from({ length: 64 }, (_, i) => squareIndex(squareName(i)))).toEqual(
      Array.from({ length: 64 }, (_, i) => i),
    );
  });

  it('starts with white on d4 and e5, black on d5 and e4', () => {
    expect(text(startBoard())).toEqual(boardText(start(rulesOptions({}))));
  });

  it('places the disc and flips the recorded squares; a pass changes nothing', () => {
    const after = applyMove(startBoard(), { player: 'white', square: 'e3', flips: ['e4'] });
    expect(countDiscs(after)).toEqual({ black: 1, white: 4 });
    expect(applyMove(after, { player: 'black', square: 'pass', flips: [] })).toEqual(after);
  });

  it('matches the rules engine at every ply of random games, for both first players', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Color>('white', 'black'),
        fc.array(fc.nat(63), { minLength: 1, maxLength: 64 }),
        (firstPlayer, picks) => {
          const { moves, positions } = engineGame(firstPlayer, picks);
          const boards = replayBoards(moves);
          expect(boards).toHaveLength(positions.length);
          boards.forEach((board, ply) => {
            expect(text(board)).toEqual(boardText(positions[ply]!));
            if (!isGameOver(positions[ply]!))
              expect(toMoveAfter(moves, ply, firstPlayer)).toBe(positions[ply]!.toMove);
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('extends an earlier replay with new moves without replaying the old ones', () => {
    const { moves } = engineGame('white', [3, 1, 4, 1, 5, 9, 2, 6]);
    const early = replayBoards(moves.slice(0, 10));
    const later = replayBoards(moves, early);
    expect(later.slice(0, 11)).toEqual(early);
    expect(later[10]).toBe(early[10]);
    expect(later).toEqual(replayBoards(moves));
  });
});
