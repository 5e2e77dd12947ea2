import { describe, expect, it } from 'vitest';
import { seededRandom } from '../support/random.ts';
import { pairSwissRound, type SwissRound } from './swiss.ts';
import type { GameResult, Side, TournamentGame } from './types.ts';

const bots = (n: number) => Array.from({ length: n }, (_, k) => `bot${String(k + 1).padStart(2, '0')}`);

/** White wins 45%, Black 45%, draws 10%. */
function randomResult(random: () => number): GameResult {
  const x = random();
  return x < 0.45 ? 'white' : x < 0.9 ? 'black' : 'draw';
}

interface Played {
  readonly rounds: Extract<SwissRound, { ok: true }>[];
  readonly games: TournamentGame[];
  readonly byes: string[];
  /** The answer that ended the tournament early, if one did. */
  readonly failure: Extract<SwissRound, { ok: false }> | null;
}

/** Plays up to `rounds` Swiss rounds with seeded random results, stopping at the first round that cannot be paired. */
function playSwiss(entrants: readonly string[], rounds: number, seed: number): Played {
  const random = seededRandom(seed);
  const played: Played = { rounds: [], games: [], byes: [], failure: null };
  for (let round = 1; round <= rounds; round++) {
    const answer = pairSwissRound(entrants, { games: played.games, byes: played.byes }, round);
    if (!answer.ok) return { ...played, failure: answer };
    played.rounds.push(answer);
    if (answer.bye !== null) played.byes.push(answer.bye);
    for (const pairing of answer.pairings) played.games.push({ ...pairing, result: randomResult(random) });
  }
  return played;
}

const key = (a: string, b: string) => (a < b ? `${a} ${b}` : `${b} ${a}`);

function coloursAfter(games: readonly TournamentGame[]): Map<string, Side[]> {
  const colours = new Map<string, Side[]>();
  for (const { white, black } of games) {
    colours.set(white, [...(colours.get(white) ?? []), 'white']);
    colours.set(black, [...(colours.get(black) ?? []), 'black']);
  }
  return colours;
}

/** Whether `players` can all be paired with nobody meeting a bot in `met` again: brute force, an oracle independent of the search. */
function repeatFreePairingExists(players: readonly string[], met: ReadonlySet<string>): boolean {
  if (players.length === 0) return true;
  const [first, ...rest] = players as [string, ...string[]];
  return rest.some(
    (other) =>
      !met.has(key(first, other)) &&
      repeatFreePairingExists(
        rest.filter((p) => p !== other),
        met,
      ),
  );
}

describe('pairSwissRound', () => {
  describe('in round 1', () => {
    it('pairs the top half of the seeds against the bottom half, colours alternating by board', () => {
      // Seeds 1–6: 1–4, 2–5, 3–6; the higher seed has White on boards 1 and 3, Black on board 2.
      expect(pairSwissRound(['a', 'b', 'c', 'd', 'e', 'f'], { games: [] }, 1)).toEqual({
        ok: true,
        round: 1,
        pairings: [
          { white: 'a', black: 'd' },
          { white: 'e', black: 'b' },
          { white: 'c', black: 'f' },
        ],
        bye: null,
        colours: 'balanced',
      });
    });

    it('gives an odd field’s bye to the lowest seed', () => {
      const answer = pairSwissRound(['a', 'b', 'c', 'd', 'e'], { games: [] }, 1);
      expect(answer.ok && answer.bye).toBe('e');
    });
  });

  describe('in a later round', () => {
    it('ranks by points, gives the bye to the lowest-ranked bot without one, and pairs around repeats', () => {
      // Round 1: a (W) – c (B) 0–1, d (W) – b (B) draw, e bye. Points: c 1, e 1, b ½, d ½, a 0.
      // The bye goes to a (lowest, none yet), leaving c, e, b, d in rank order. Top half against
      // bottom half would be c–e and b–d, but b and d have met. c's next choices: b (both had
      // Black, so one would be two Blacks down: not balanced), then d (had White): c–d, c White.
      // That leaves b–e: b had Black, e no game, so b White.
      const games: TournamentGame[] = [
        { white: 'a', black: 'c', result: 'black' },
        { white: 'd', black: 'b', result: 'draw' },
      ];
      expect(pairSwissRound(['a', 'b', 'c', 'd', 'e'], { games, byes: ['e'] }, 2)).toEqual({
        ok: true,
        round: 2,
        pairings: [
          { white: 'c', black: 'd' },
          { white: 'b', black: 'e' },
        ],
        bye: 'a',
        colours: 'balanced',
      });
    });

    it('moves off the first choice when it would repeat a pairing or unbalance colours', () => {
      // Round 1: a (W) – c (B) and d (W) – b (B), both drawn: all on ½. a's first choice c is a
      // repeat; d had White like a, so one of them would be +2 after two games; b is due White.
      // That leaves c (due White) – d (due Black).
      const games: TournamentGame[] = [
        { white: 'a', black: 'c', result: 'draw' },
        { white: 'd', black: 'b', result: 'draw' },
      ];
      const answer = pairSwissRound(['a', 'b', 'c', 'd'], { games }, 2);
      expect(answer.ok && answer.pairings).toEqual([
        { white: 'b', black: 'a' },
        { white: 'c', black: 'd' },
      ]);
    });

    it('says so, typed, when every pairing would repeat one', () => {
      const games: TournamentGame[] = [{ white: 'a', black: 'b', result: 'white' }];
      expect(pairSwissRound(['a', 'b'], { games }, 2)).toEqual({
        ok: false,
        round: 2,
        reason: 'no-repeat-free-pairing',
      });
    });
  });

  describe('over many rounds of random results', () => {
    const cases = [
      { n: 6, rounds: 5 },
      { n: 7, rounds: 7 },
      { n: 8, rounds: 7 },
      { n: 9, rounds: 9 },
      { n: 16, rounds: 15 },
      { n: 17, rounds: 17 },
    ];
    for (const { n, rounds } of cases) {
      for (const seed of [1, 2, 3, 4, 5]) {
        describe(`with ${n} bots, seed ${seed}`, () => {
          const entrants = bots(n);
          const played = playSwiss(entrants, rounds, seed);

          it('never pairs two bots twice, nor a bot twice in a round', () => {
            const pairs = played.games.map((g) => key(g.white, g.black));
            expect(new Set(pairs).size).toBe(pairs.length);
            for (const round of played.rounds) {
              const playing = round.pairings.flatMap((p) => [p.white, p.black]);
              expect(new Set(playing).size).toBe(playing.length);
            }
          });

          it('pairs at least n/2 rounds, where a repeat-free pairing always exists', () => {
            // The m = n (even) or n − 1 (odd, one bot out on a bye) bots to pair have each met at
            // most r others after r rounds, so each may meet ≥ m − 1 − r of them; while that is ≥
            // m/2, Dirac's theorem gives a Hamiltonian cycle, hence a perfect matching: rounds
            // 1 … floor(n/2) always pair.
            expect(played.rounds.length).toBeGreaterThanOrEqual(Math.floor(n / 2));
          });

          it('stops only when no repeat-free pairing exists, whoever would take the bye', () => {
            if (played.failure === null) return;
            const met = new Set(played.games.map((g) => key(g.white, g.black)));
            const candidates = n % 2 === 0 ? [null] : entrants;
            for (const bye of candidates) {
              expect(
                repeatFreePairingExists(
                  entrants.filter((id) => id !== bye),
                  met,
                ),
              ).toBe(false);
            }
          });

          it('gives an odd field exactly one bye a round, and nobody a second while another has none and could take it', () => {
            for (const [k, round] of played.rounds.entries()) {
              const playing = round.pairings.flatMap((p) => [p.white, p.black]);
              if (n % 2 === 0) {
                expect(round.bye).toBeNull();
                continue;
              }
              expect([...playing, round.bye].sort()).toEqual([...entrants].sort());
              const earlier = played.rounds.slice(0, k);
              const byesOf = (id: string) => earlier.filter((r) => r.bye === id).length;
              const fewest = Math.min(...entrants.map(byesOf));
              if (byesOf(round.bye!) === fewest) continue;
              // A bot with fewer byes was passed over: only right if no pairing could leave it out.
              const gamesBefore = earlier.flatMap((r) => r.pairings);
              const met = new Set(gamesBefore.map((g) => key(g.white, g.black)));
              for (const id of entrants.filter((e) => byesOf(e) === fewest)) {
                expect(
                  repeatFreePairingExists(
                    entrants.filter((e) => e !== id),
                    met,
                  ),
                ).toBe(false);
              }
            }
          });

          it('keeps colours within the rule each round reports', () => {
            for (let r = 1; r <= played.rounds.length; r++) {
              const soFar = played.games.slice(
                0,
                played.rounds.slice(0, r).flatMap((x) => x.pairings).length,
              );
              const rule = played.rounds[r - 1]!.colours;
              for (const [, sides] of coloursAfter(soFar)) {
                const difference = sides.filter((s) => s === 'white').length * 2 - sides.length;
                if (rule !== 'relaxed') {
                  expect(Math.abs(difference)).toBeLessThanOrEqual(2);
                  expect(sides.slice(-3).length === 3 && new Set(sides.slice(-3)).size === 1).toBe(false);
                }
              }
            }
          });

          if (n % 2 === 0) {
            it('has |whites − blacks| ≤ 1 for everyone after every even round while rounds stay balanced', () => {
              let gamesSoFar = 0;
              for (const [k, round] of played.rounds.entries()) {
                gamesSoFar += round.pairings.length;
                if (round.colours !== 'balanced') break;
                if ((k + 1) % 2 !== 0) continue;
                for (const [, sides] of coloursAfter(played.games.slice(0, gamesSoFar))) {
                  const whites = sides.filter((s) => s === 'white').length;
                  expect(Math.abs(whites - (sides.length - whites))).toBeLessThanOrEqual(1);
                }
              }
            });

            it('keeps colours balanced through the first half of the rounds, where that is easy', () => {
              const early = played.rounds.slice(0, Math.floor(n / 2) - 1);
              expect(early.map((r) => r.colours)).toEqual(early.map(() => 'balanced'));
            });
          }
        });
      }
    }
  });

  describe('when its input is not a tournament', () => {
    it('refuses a round below 1, an unknown bot and a bot listed twice', () => {
      expect(() => pairSwissRound(['a', 'b'], { games: [] }, 0)).toThrow(/round/);
      expect(() =>
        pairSwissRound(['a', 'b'], { games: [{ white: 'a', black: 'x', result: 'draw' }] }, 2),
      ).toThrow(/x/);
      expect(() => pairSwissRound(['a', 'b', 'a'], { games: [] }, 1)).toThrow(/twice/);
    });
  });
});
