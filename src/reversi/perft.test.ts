import { describe, expect, it } from 'vitest';
import { boardWith } from '../../test/reversi/boards.ts';
import { rulesOptions } from './options.ts';
import { perft } from './perft.ts';
import { initialPosition } from './position.ts';

// OEIS A124004 (Edax); deeper depths are in test/reversi/perft.test.ts and bench/perft.ts.
const FROM_START = [1, 4, 12, 56, 244, 1396, 8200];

describe('perft', () => {
  it.each(FROM_START.map((nodes, depth) => ({ depth, nodes })))(
    'counts $nodes nodes at depth $depth',
    ({ depth, nodes }) => {
      expect(perft(initialPosition(), depth)).toBe(nodes);
      expect(perft(initialPosition(rulesOptions({ firstPlayer: 'black' })), depth)).toBe(nodes);
    },
  );

  it('counts a forced pass as a ply', () => {
    // Black cannot move; white can play c1 only, then black can play d1.
    const blocked = boardWith(['b1'], ['a1'], 'black');
    expect(perft(blocked, 1)).toBe(1);
    expect(perft(blocked, 2)).toBe(1);
  });

  it('counts a finished game only at depth 0', () => {
    const finished = boardWith(['a1'], ['h8']);
    expect([0, 1, 2].map((depth) => perft(finished, depth))).toEqual([1, 0, 0]);
  });

  it.each([-1, 1.5, Number.NaN])('rejects depth %d', (depth) => {
    expect(() => perft(initialPosition(), depth)).toThrow(RangeError);
  });
});
