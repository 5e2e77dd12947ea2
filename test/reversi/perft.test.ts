import { describe, expect, it } from 'vitest';
import {
  initialPosition,
  legalMoves,
  perft,
  positionFromBoardText,
  rulesOptions,
} from '../../src/reversi/index.ts';
import { loadFforum } from './ffo.ts';
import { refFromRows, refPerft } from './reference.ts';

// OEIS A124004 (Edax convention): published, not produced by this engine.
const FROM_START = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288];

describe('perft from the start position', () => {
  const whiteFirst = initialPosition();
  const blackFirst = initialPosition(rulesOptions({ firstPlayer: 'black' }));

  it.each(FROM_START.map((nodes, depth) => ({ depth, nodes })).slice(1))(
    'matches OEIS A124004 at depth $depth ($nodes)',
    ({ depth, nodes }) => {
      expect(perft(whiteFirst, depth)).toBe(nodes);
    },
  );

  it.each([1, 4, 7, 9])('gives the same count with black first at depth %i', (depth) => {
    expect(perft(blackFirst, depth)).toBe(FROM_START[depth]);
  });

  it('agrees with the reference implementation to depth 5', () => {
    const start = refFromRows(
      ['........', '........', '........', '...WB...', '...BW...', '........', '........', '........'],
      'white',
    );
    expect(refPerft(start, 5)).toBe(perft(whiteFirst, 5));
  });
});

describe('perft on FForum endgame positions', () => {
  const positions = loadFforum();

  it('loads all 79 positions', () => {
    expect(positions).toHaveLength(79);
  });

  describe.each(positions)('$name', ({ rows, toMove, moves }) => {
    const pos = positionFromBoardText(rows, toMove);

    it('agrees with the reference implementation at depths 1-4', () => {
      const ref = refFromRows(rows, toMove);
      const depths = [1, 2, 3, 4];
      expect(depths.map((d) => perft(pos, d))).toEqual(depths.map((d) => refPerft(ref, d)));
    });

    it('allows every listed best move', () => {
      expect(moves.length).toBeGreaterThan(0);
      expect(legalMoves(pos)).toEqual(expect.arrayContaining(moves));
    });
  });
});
