/**
 * Fixed schedules: a round robin by the circle (Berger) method, and a gauntlet. Both are known in
 * full before the first game, so the service can store every round at creation.
 */

import {
  type GamesPerPairing,
  type Pairing,
  type Round,
  requireEntrants,
  requireGamesPerPairing,
} from './types.ts';

/** Round r's pairings, then the same pairings with colours swapped: a paired game, played back to back. */
function withReturnGames(
  rounds: readonly Omit<Round, 'number'>[],
  gamesPerPairing: GamesPerPairing,
): Round[] {
  const all = gamesPerPairing === 1 ? rounds : rounds.flatMap((round) => [round, swapped(round)]);
  return all.map((round, k) => ({ ...round, number: k + 1 }));
}

function swapped(round: Omit<Round, 'number'>): Omit<Round, 'number'> {
  return { ...round, pairings: round.pairings.map(({ white, black }) => ({ white: black, black: white })) };
}

/**
 * Every pairing of `entrants`, in rounds where each bot plays at most once: n − 1 rounds for an
 * even field, n for an odd one, where each round one bot sits out (`bye`, no points). With
 * `gamesPerPairing` 2 each round is followed at once by its return round, colours swapped.
 *
 * The circle method as Berger's tables have it: the last entrant stays put, the others turn round
 * a circle by n/2 places a round (a step that visits every arrangement once, since it is coprime to
 * n − 1), and each bot then alternates colours apart from one repeat around its game against the
 * fixed one. Each bot ends with |whites − blacks| ≤ 1 in a single round robin, 0 in a double.
 *
 * @example
 * scheduleRoundRobin(['a', 'b', 'c', 'd'], 1).map((r) => r.pairings);
 * // [[{ white: 'a', black: 'd' }, { white: 'b', black: 'c' }], …] (3 rounds of 2 games)
 */
export function scheduleRoundRobin(entrants: readonly string[], gamesPerPairing: GamesPerPairing): Round[] {
  requireEntrants(entrants);
  requireGamesPerPairing(gamesPerPairing);
  const odd = entrants.length % 2 === 1;
  // An odd field gets a phantom fixed player; whoever meets it sits out.
  const fixed = odd ? null : entrants[entrants.length - 1]!;
  const circle = odd ? entrants : entrants.slice(0, -1);
  const m = circle.length; // odd
  const half = (m - 1) / 2;
  const step = half + 1;

  const rounds: Omit<Round, 'number'>[] = [];
  for (let r = 0; r < m; r++) {
    const at = (position: number) => circle[(position + r * step) % m]!;
    const pairings: Pairing[] = [];
    let bye: string | null = null;
    if (fixed === null) bye = at(0);
    else pairings.push(r % 2 === 0 ? { white: at(0), black: fixed } : { white: fixed, black: at(0) });
    for (let i = 1; i <= half; i++) pairings.push({ white: at(i), black: at(m - i) });
    rounds.push({ pairings, bye });
  }
  return withReturnGames(rounds, gamesPerPairing);
}

/**
 * `challenger` against each of `opponents` in turn, one game a round (so the challenger is never in
 * two games at once; a service whose challenger takes concurrent matches may run rounds together).
 * The challenger's colour alternates from game to game, so its |whites − blacks| ≤ 1; with
 * `gamesPerPairing` 2 each opponent's return game follows at once.
 *
 * @example
 * scheduleGauntlet('champ', ['a', 'b'], 1).map((r) => r.pairings[0]);
 * // [{ white: 'champ', black: 'a' }, { white: 'b', black: 'champ' }]
 */
export function scheduleGauntlet(
  challenger: string,
  opponents: readonly string[],
  gamesPerPairing: GamesPerPairing,
): Round[] {
  requireEntrants([challenger, ...opponents]);
  requireGamesPerPairing(gamesPerPairing);
  const rounds = opponents.map((opponent, k) => ({
    // With return games every first game is the challenger's white, and the return its black.
    pairings: [
      k % 2 === 0 || gamesPerPairing === 2
        ? { white: challenger, black: opponent }
        : { white: opponent, black: challenger },
    ],
    bye: null,
  }));
  return withReturnGames(rounds, gamesPerPairing);
}
