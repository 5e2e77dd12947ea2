import { describe, expect, it } from 'vitest';
import { searchPairing } from './swiss-search.ts';

const anyone = () => true;
/** Allowed unless {a, b} is one of `forbidden` (either way round). */
const except =
  (...forbidden: [number, number][]) =>
  (a: number, b: number) =>
    !forbidden.some(([x, y]) => (x === a && y === b) || (x === b && y === a));

describe('searchPairing', () => {
  describe('when everyone may meet everyone', () => {
    it('pairs a score group top half against bottom half', () => {
      expect(searchPairing([0, 0, 0, 0, 0, 0, 0, 0], anyone)).toEqual({
        kind: 'paired',
        pairs: [
          [0, 4],
          [1, 5],
          [2, 6],
          [3, 7],
        ],
      });
    });

    it("floats an odd group's last player down to the top of the next group", () => {
      // Groups {0, 1, 2} on 2 points and {3, 4, 5} on 1: 0–1 (top vs bottom half of three), 2 floats
      // and meets 3, the best of the next group, which leaves 4–5.
      expect(searchPairing([2, 2, 2, 1, 1, 1], anyone)).toEqual({
        kind: 'paired',
        pairs: [
          [0, 1],
          [2, 3],
          [4, 5],
        ],
      });
    });
  });

  describe('when the first choices lead nowhere', () => {
    it('backtracks to a pairing the greedy choice would have missed', () => {
      // 0's first choice is 3 (the middle of six), which leaves {1, 2, 4, 5}; there 1 and 4 may
      // only meet 2, so that branch fails although everyone still has a partner. With 0–4 instead,
      // 1–2 and 3–5 remain.
      const allowed = except([1, 4], [1, 5], [4, 5], [4, 3], [1, 3]);
      const outcome = searchPairing([0, 0, 0, 0, 0, 0], allowed);
      expect(outcome.kind).toBe('paired');
      if (outcome.kind !== 'paired') return;
      expect(outcome.pairs[0]).toEqual([0, 4]);
      expect(outcome.pairs.flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
      for (const [a, b] of outcome.pairs) expect(allowed(a, b)).toBe(true);
    });

    it('proves there is no pairing when none exists', () => {
      // 0 may meet only 1, and so may 2.
      expect(searchPairing([0, 0, 0, 0], except([0, 2], [0, 3], [2, 3]))).toEqual({ kind: 'none' });
    });

    it('gives up, saying so, when its step limit runs out', () => {
      expect(searchPairing([0, 0, 0, 0], anyone, 0)).toEqual({ kind: 'gave-up' });
    });
  });

  it('refuses an odd number of players', () => {
    expect(() => searchPairing([0, 0, 0], anyone)).toThrow(RangeError);
  });
});
