import { describe, expect, it } from 'vitest';
import { seededRandom } from '../support/random.ts';
import { scheduleRoundRobin } from './schedule.ts';
import { standings } from './standings.ts';
import { buchholz, sonnebornBerger, tallies } from './tiebreaks.ts';
import type { GameResult, TournamentGame } from './types.ts';

const game = (white: string, black: string, result: GameResult): TournamentGame => ({ white, black, result });

/**
 * Round robin 1 (A, B, C, D):
 *   A–B 1–0, A–C ½–½, A–D 1–0, B–C 1–0, B–D ½–½, C–D 1–0.
 * Points: A 1 + ½ + 1 = 2.5; B 0 + 1 + ½ = 1.5; C ½ + 0 + 1 = 1.5; D 0 + ½ + 0 = 0.5.
 * Sonneborn–Berger (score × opponent's points, summed):
 *   A: 1·1.5 (B) + ½·1.5 (C) + 1·0.5 (D) = 2.75
 *   B: 0·2.5 (A) + 1·1.5 (C) + ½·0.5 (D) = 1.75
 *   C: ½·2.5 (A) + 0·1.5 (B) + 1·0.5 (D) = 1.75
 *   D: 0·2.5 (A) + ½·1.5 (B) + 0·1.5 (C) = 0.75
 * B and C are equal on points and SB: they share rank 2, and D is 4th.
 */
const roundRobin1 = [
  game('A', 'B', 'white'),
  game('C', 'A', 'draw'),
  game('A', 'D', 'white'),
  game('B', 'C', 'white'),
  game('D', 'B', 'draw'),
  game('C', 'D', 'white'),
];

/**
 * Round robin 2 (A, B, C, D):
 *   A–B 1–0, A–C 1–0, A–D 0–1, B–C ½–½, B–D ½–½, C–D 1–0.
 * Points: A 2; B 0 + ½ + ½ = 1; C 0 + ½ + 1 = 1.5; D 1 + ½ + 0 = 1.5.
 * SB: A: 1·1 (B) + 1·1.5 (C) + 0 = 2.5
 *     C: 0 + ½·1 (B) + 1·1.5 (D) = 2
 *     D: 1·2 (A) + ½·1 (B) + 0 = 2.5
 *     B: 0 + ½·1.5 (C) + ½·1.5 (D) = 1.5
 * C and D tie on points; D's win over A gives it the better SB, so D is 2nd although 'C' < 'D'.
 */
const roundRobin2 = [
  game('A', 'B', 'white'),
  game('C', 'A', 'black'),
  game('A', 'D', 'black'),
  game('B', 'C', 'draw'),
  game('D', 'B', 'draw'),
  game('C', 'D', 'white'),
];

/**
 * Swiss, five bots P1–P5, two rounds:
 *   Round 1: P1–P3 1–0, P2–P4 ½–½, P5 bye.
 *   Round 2: P1–P5 0–1, P2–P3 1–0, P4 bye.
 * Points: P1 1; P2 ½ + 1 = 1.5; P3 0; P4 ½ + 1 (bye) = 1.5; P5 1 (bye) + 1 = 2.
 * Buchholz (opponents' points, once per game; a bye adds nothing):
 *   P1: P3 0 + P5 2 = 2;  P2: P4 1.5 + P3 0 = 1.5;  P3: P1 1 + P2 1.5 = 2.5;
 *   P4: P2 1.5 = 1.5;     P5: P1 1 = 1.
 * Ranks: P5 1st; P2 and P4 equal on 1.5 and Buchholz 1.5, sharing 2nd; P1 4th; P3 5th.
 */
const swiss = {
  games: [
    game('P1', 'P3', 'white'),
    game('P2', 'P4', 'draw'),
    game('P5', 'P1', 'white'),
    game('P3', 'P2', 'black'),
  ],
  byes: ['P5', 'P4'],
};

describe('standings', () => {
  describe('of a round robin', () => {
    it('ranks by points, then Sonneborn–Berger, sharing a rank where both are equal', () => {
      expect(
        standings('round-robin', ['A', 'B', 'C', 'D'], { games: roundRobin1 }).map((s) => [
          s.rank,
          s.botId,
          s.points,
          s.tiebreak,
        ]),
      ).toEqual([
        [1, 'A', 2.5, 2.75],
        [2, 'B', 1.5, 1.75],
        [2, 'C', 1.5, 1.75],
        [4, 'D', 0.5, 0.75],
      ]);
    });

    it('breaks equal points by Sonneborn–Berger before the bot id', () => {
      expect(
        standings('round-robin', ['A', 'B', 'C', 'D'], { games: roundRobin2 }).map((s) => [
          s.rank,
          s.botId,
          s.points,
          s.tiebreak,
        ]),
      ).toEqual([
        [1, 'A', 2, 2.5],
        [2, 'D', 1.5, 2.5],
        [3, 'C', 1.5, 2],
        [4, 'B', 1, 1.5],
      ]);
    });

    it('counts wins, draws and losses', () => {
      expect(standings('round-robin', ['A', 'B', 'C', 'D'], { games: roundRobin1 })[0]).toEqual({
        rank: 1,
        botId: 'A',
        points: 2.5,
        games: 3,
        wins: 2,
        draws: 1,
        losses: 0,
        byes: 0,
        tiebreak: 2.75,
      });
    });

    it('refuses byes, which a round robin does not score', () => {
      expect(() => standings('round-robin', ['A', 'B', 'C'], { games: [], byes: ['C'] })).toThrow(/byes/);
    });
  });

  describe('of a Swiss tournament', () => {
    it('scores a bye 1 point and no game, and ranks by Buchholz', () => {
      const table = standings('swiss', ['P1', 'P2', 'P3', 'P4', 'P5'], swiss);
      expect(table.map((s) => [s.rank, s.botId, s.points, s.tiebreak])).toEqual([
        [1, 'P5', 2, 1],
        [2, 'P2', 1.5, 1.5],
        [2, 'P4', 1.5, 1.5],
        [4, 'P1', 1, 2],
        [5, 'P3', 0, 2.5],
      ]);
      expect(table.find((s) => s.botId === 'P4')).toMatchObject({ games: 1, draws: 1, byes: 1, points: 1.5 });
    });
  });

  it('lists an entrant without games with zeros', () => {
    // B lost its one game: 0 points, SB 0, like C, so they share 2nd; B is listed first by id.
    expect(standings('gauntlet', ['A', 'B', 'C'], { games: [game('A', 'B', 'white')] })[2]).toEqual({
      rank: 2,
      botId: 'C',
      points: 0,
      games: 0,
      wins: 0,
      draws: 0,
      losses: 0,
      byes: 0,
      tiebreak: 0,
    });
  });

  it('refuses a game naming a bot that is not an entrant', () => {
    expect(() => standings('swiss', ['A', 'B'], { games: [game('A', 'Z', 'draw')] })).toThrow(/Z/);
  });

  describe('of random double round robins', () => {
    for (const seed of [1, 2, 3]) {
      it(`adds up (seed ${seed}): points from results, games from counts, ranks in order`, () => {
        const random = seededRandom(seed);
        const entrants = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
        const games = scheduleRoundRobin(entrants, 2)
          .flatMap((r) => r.pairings)
          .map((p) => {
            const x = random();
            return { ...p, result: (x < 0.4 ? 'white' : x < 0.8 ? 'black' : 'draw') as GameResult };
          });
        const table = standings('round-robin', entrants, { games });
        expect(table.reduce((sum, s) => sum + s.points, 0)).toBe(games.length);
        for (const s of table) {
          expect(s.games).toBe(s.wins + s.draws + s.losses);
          expect(s.points).toBe(s.wins + s.draws / 2 + s.byes);
          expect(s.games).toBe(2 * (entrants.length - 1));
        }
        expect(table.reduce((sum, s) => sum + s.wins, 0)).toBe(table.reduce((sum, s) => sum + s.losses, 0));
        for (let k = 1; k < table.length; k++) {
          const [above, below] = [table[k - 1]!, table[k]!];
          expect(
            above.points > below.points ||
              (above.points === below.points && above.tiebreak >= below.tiebreak),
          ).toBe(true);
          expect(below.rank).toBe(
            above.points === below.points && above.tiebreak === below.tiebreak ? above.rank : k + 1,
          );
        }
      });
    }
  });
});

describe('the tie-breaks on their own', () => {
  const points = new Map(
    [...tallies(['A', 'B', 'C', 'D'], { games: roundRobin1 })].map(([id, t]) => [id, t.points]),
  );

  it('Sonneborn–Berger matches the worked example', () => {
    expect(Object.fromEntries(sonnebornBerger(roundRobin1, points))).toEqual({
      A: 2.75,
      B: 1.75,
      C: 1.75,
      D: 0.75,
    });
  });

  it("Buchholz sums every opponent's points", () => {
    // Everyone met everyone once: Buchholz is the others' points, 6 − own.
    expect(Object.fromEntries(buchholz(roundRobin1, points))).toEqual({ A: 3.5, B: 4.5, C: 4.5, D: 5.5 });
  });
});
