import { describe, expect, it } from 'vitest';
import { eloUpdate, expectedScore, kFactor } from './elo.ts';

describe('expectedScore', () => {
  it('is one half between equals', () => {
    expect(expectedScore(1500, 1500)).toBe(0.5);
  });
  it('is about 0.909 for a 400-point favourite', () => {
    expect(expectedScore(2400, 2000)).toBeCloseTo(10 / 11, 12);
  });
  it('sums to one over both sides', () => {
    expect(expectedScore(1712, 1433) + expectedScore(1433, 1712)).toBeCloseTo(1, 12);
  });
});

describe('eloUpdate', () => {
  it.each([
    ['1500 beats 1500, K 32', 1500, 1500, 1, 32, 1516, 1484],
    ['2400 beats 2000, K 32', 2400, 2000, 1, 32, 2402.909, 1997.091],
    ['2400 loses to 2000, K 32', 2400, 2000, 0, 32, 2370.909, 2029.091],
    ['2000 draws 1900, K 20', 2000, 1900, 0.5, 20, 1997.199, 1902.801],
  ] as const)('%s', (_name, a, b, score, k, expectedA, expectedB) => {
    const next = eloUpdate(a, b, score, k, k);
    expect(next.a).toBeCloseTo(expectedA, 3);
    expect(next.b).toBeCloseTo(expectedB, 3);
    expect(next.a - a + (next.b - b)).toBeCloseTo(0, 10);
  });

  it('moves each side by its own K', () => {
    const next = eloUpdate(1500, 1500, 1, 40, 20);
    expect(next).toEqual({ a: 1520, b: 1490 });
  });
});

describe('kFactor', () => {
  const params = { kProvisional: 40, k: 20, provisionalGames: 30 };
  it('is provisional for the first 30 rated games', () => {
    expect(kFactor(0, params)).toBe(40);
    expect(kFactor(29, params)).toBe(40);
    expect(kFactor(30, params)).toBe(20);
  });
});
