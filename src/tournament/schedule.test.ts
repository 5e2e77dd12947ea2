import { describe, expect, it } from 'vitest';
import { scheduleGauntlet, scheduleRoundRobin } from './schedule.ts';
import type { GamesPerPairing, Round, Side } from './types.ts';

const bots = (n: number) => Array.from({ length: n }, (_, k) => `bot${k + 1}`);

/** Each bot's colours in round order. */
function coloursOf(rounds: readonly Round[]): Map<string, Side[]> {
  const colours = new Map<string, Side[]>();
  const add = (id: string, side: Side) => colours.set(id, [...(colours.get(id) ?? []), side]);
  for (const round of rounds) {
    for (const { white, black } of round.pairings) {
      add(white, 'white');
      add(black, 'black');
    }
  }
  return colours;
}

const balance = (sides: readonly Side[]) => sides.filter((s) => s === 'white').length * 2 - sides.length;
const longestRun = (sides: readonly Side[]) =>
  sides.reduce(
    ({ run, best }, side, k) => {
      const next = k > 0 && sides[k - 1] === side ? run + 1 : 1;
      return { run: next, best: Math.max(best, next) };
    },
    { run: 0, best: 0 },
  ).best;

describe('scheduleRoundRobin', () => {
  for (const gamesPerPairing of [1, 2] as const satisfies readonly GamesPerPairing[]) {
    for (let n = 2; n <= 11; n++) {
      describe(`with ${n} bots and ${gamesPerPairing} game(s) a pairing`, () => {
        const entrants = bots(n);
        const rounds = scheduleRoundRobin(entrants, gamesPerPairing);

        it('plays n − 1 rounds for an even field and n for an odd one, numbered from 1', () => {
          const cycle = n % 2 === 0 ? n - 1 : n;
          expect(rounds.map((r) => r.number)).toEqual(
            Array.from({ length: cycle * gamesPerPairing }, (_, k) => k + 1),
          );
        });

        it('has every pair meet exactly gamesPerPairing times, colours swapped in the return game', () => {
          const meetings = new Map<string, number>();
          for (const { white, black } of rounds.flatMap((r) => r.pairings)) {
            meetings.set(`${white}>${black}`, (meetings.get(`${white}>${black}`) ?? 0) + 1);
          }
          for (const a of entrants) {
            for (const b of entrants) {
              if (a >= b) continue;
              const ab = meetings.get(`${a}>${b}`) ?? 0;
              const ba = meetings.get(`${b}>${a}`) ?? 0;
              expect(ab + ba).toBe(gamesPerPairing);
              if (gamesPerPairing === 2) expect([ab, ba]).toEqual([1, 1]);
            }
          }
        });

        it('has nobody play twice in a round, and in an odd field exactly one bot sit out', () => {
          for (const round of rounds) {
            const playing = round.pairings.flatMap((p) => [p.white, p.black]);
            expect(new Set(playing).size).toBe(playing.length);
            if (n % 2 === 0) {
              expect(round.bye).toBeNull();
              expect(playing).toHaveLength(n);
            } else {
              expect(round.bye).not.toBeNull();
              expect([...playing, round.bye].sort()).toEqual([...entrants].sort());
            }
          }
        });

        it('sits every bot of an odd field out equally often', () => {
          if (n % 2 === 0) return;
          for (const bot of entrants) {
            expect(rounds.filter((r) => r.bye === bot)).toHaveLength(gamesPerPairing);
          }
        });

        it('balances colours: |whites − blacks| ≤ 1 (0 with return games), never three alike in a row', () => {
          for (const [, sides] of coloursOf(rounds)) {
            expect(Math.abs(balance(sides))).toBeLessThanOrEqual(gamesPerPairing === 2 ? 0 : 1);
            expect(longestRun(sides)).toBeLessThanOrEqual(2);
          }
        });

        if (gamesPerPairing === 2) {
          it('follows each round at once with its return round', () => {
            for (let k = 0; k < rounds.length; k += 2) {
              expect(rounds[k + 1]!.pairings).toEqual(
                rounds[k]!.pairings.map(({ white, black }) => ({ white: black, black: white })),
              );
            }
          });
        }
      });
    }
  }

  describe('when the entrants are not a field', () => {
    it('refuses one bot, a bot listed twice and a games-per-pairing other than 1 or 2', () => {
      expect(() => scheduleRoundRobin(['a'], 1)).toThrow(RangeError);
      expect(() => scheduleRoundRobin(['a', 'b', 'a'], 1)).toThrow(/twice/);
      expect(() => scheduleRoundRobin(['a', 'b'], 3 as GamesPerPairing)).toThrow(/1 or 2/);
    });
  });
});

describe('scheduleGauntlet', () => {
  const opponents = ['a', 'b', 'c', 'd', 'e'];

  for (const gamesPerPairing of [1, 2] as const) {
    describe(`with ${gamesPerPairing} game(s) a pairing`, () => {
      const rounds = scheduleGauntlet('champ', opponents, gamesPerPairing);

      it('plays one game a round, always the challenger against an opponent', () => {
        expect(rounds).toHaveLength(opponents.length * gamesPerPairing);
        for (const round of rounds) {
          expect(round.pairings).toHaveLength(1);
          expect(round.bye).toBeNull();
          expect([round.pairings[0]!.white, round.pairings[0]!.black]).toContain('champ');
        }
      });

      it('meets each opponent gamesPerPairing times, once with each colour when twice', () => {
        for (const opponent of opponents) {
          const games = rounds
            .flatMap((r) => r.pairings)
            .filter((p) => p.white === opponent || p.black === opponent);
          expect(games).toHaveLength(gamesPerPairing);
          if (gamesPerPairing === 2)
            expect(games.map((g) => g.white).sort()).toEqual([opponent, 'champ'].sort());
        }
      });

      it("balances the challenger's colours", () => {
        expect(Math.abs(balance(coloursOf(rounds).get('champ')!))).toBeLessThanOrEqual(1);
      });
    });
  }

  it('refuses a challenger among its opponents, and no opponents', () => {
    expect(() => scheduleGauntlet('a', ['a', 'b'], 1)).toThrow(/twice/);
    expect(() => scheduleGauntlet('a', [], 1)).toThrow(RangeError);
  });
});
