import { describe, expect, it } from 'vitest';
import { crosstable } from './crosstable.ts';
import { ratedGame, tournamentStrengths } from './strength.ts';
import type { TournamentGame } from './types.ts';

// A paired game a–b (a wins with White, draws with Black), and a–c once, c winning with Black.
const games: TournamentGame[] = [
  { white: 'a', black: 'b', result: 'white' },
  { white: 'b', black: 'a', result: 'draw' },
  { white: 'a', black: 'c', result: 'black' },
];

describe('crosstable', () => {
  const table = crosstable(['a', 'b', 'c'], { games });

  it("lists each pair's games from the row bot's side, in the order played", () => {
    expect(table.botIds).toEqual(['a', 'b', 'c']);
    expect(table.cells[0]![1]).toEqual([
      { side: 'white', score: 1 },
      { side: 'black', score: 0.5 },
    ]);
    expect(table.cells[1]![0]).toEqual([
      { side: 'black', score: 0 },
      { side: 'white', score: 0.5 },
    ]);
    expect(table.cells[2]![0]).toEqual([{ side: 'black', score: 1 }]);
  });

  it('leaves the diagonal and pairs that never met empty', () => {
    expect([0, 1, 2].map((k) => table.cells[k]![k])).toEqual([[], [], []]);
    expect(table.cells[1]![2]).toEqual([]);
    expect(table.cells[2]![1]).toEqual([]);
  });

  it('has mirrored cells whose scores add up to one a game', () => {
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        const row = table.cells[i]![j]!;
        const column = table.cells[j]![i]!;
        expect(row.map((g, k) => g.score + column[k]!.score)).toEqual(row.map(() => 1));
        expect(row.map((g, k) => g.side !== column[k]!.side)).toEqual(row.map(() => true));
      }
    }
  });

  it('follows the order it is given, as the standings order', () => {
    const reordered = crosstable(['c', 'a', 'b'], { games });
    expect(reordered.cells[0]![1]).toEqual([{ side: 'black', score: 1 }]);
  });
});

describe('tournamentStrengths', () => {
  it("gives the fit Black's score for each game", () => {
    expect(ratedGame({ white: 'x', black: 'y', result: 'white' }).score).toBe(0);
    expect(ratedGame({ white: 'x', black: 'y', result: 'black' }).score).toBe(1);
    expect(ratedGame({ white: 'x', black: 'y', result: 'draw' }).score).toBe(0.5);
  });

  it('rates the winners above the losers, with intervals around each rating, and leaves out bots without games', () => {
    // x beats y and z with either colour; y beats z with either colour.
    const results = {
      games: [
        { white: 'x', black: 'y', result: 'white' },
        { white: 'y', black: 'x', result: 'black' },
        { white: 'x', black: 'z', result: 'white' },
        { white: 'z', black: 'x', result: 'black' },
        { white: 'y', black: 'z', result: 'white' },
        { white: 'z', black: 'y', result: 'black' },
      ] satisfies TournamentGame[],
    };
    const fit = tournamentStrengths(['x', 'y', 'z', 'idle'], results);
    expect(fit.ratings.map((r) => r.id)).toEqual(['x', 'y', 'z']);
    expect(fit.ratings.reduce((sum, r) => sum + r.rating, 0) / 3).toBeCloseTo(1500, 6);
    for (const r of fit.ratings) {
      expect(r.lower).toBeLessThan(r.rating);
      expect(r.upper).toBeGreaterThan(r.rating);
      expect(r.games).toBe(4);
    }
  });

  it("leaves forfeits out: a win by the other side's fault says nothing of the winner", () => {
    const played = { white: 'x', black: 'y', result: 'draw' } as const;
    const forfeits = Array.from(
      { length: 5 },
      () => ({ ...played, result: 'white', forfeit: true }) as const,
    );
    const fit = tournamentStrengths(['x', 'y'], { games: [played, ...forfeits] });
    expect(fit.ratings.map((r) => [r.id, r.games])).toEqual(
      expect.arrayContaining([
        ['x', 1],
        ['y', 1],
      ]),
    );
    expect(fit.ratings[0]!.rating).toBeCloseTo(fit.ratings[1]!.rating, 6);
  });

  it('refuses a game naming a bot that is not an entrant', () => {
    expect(() => tournamentStrengths(['x'], { games: [{ white: 'x', black: 'q', result: 'draw' }] })).toThrow(
      /q/,
    );
  });
});
