/**
 * What a tournament does next, decided from its records alone: how entrants are seeded, how many
 * rounds it plays, which games the next round holds (with their openings), and what its matches
 * scored. Pure, like src/tournament whose schedules and Swiss pairing it applies: the service reads
 * the records, asks here, and the store writes the answer in one atomic step.
 */

import { type MatchRecord, matchEnded } from '../model/records.ts';
import type { TournamentRecord, TournamentRound } from '../store/tournament-store.ts';
import {
  type GameResult,
  type Pairing,
  pairSwissRound,
  type Results,
  type Round,
  scheduleGauntlet,
  scheduleRoundRobin,
  type TournamentGame,
} from '../tournament/index.ts';

/** An entrant as seeding reads it. */
export interface SeedCandidate {
  readonly id: string;
  readonly rating: number;
  readonly retired: boolean;
}

/**
 * The entrants that play, strongest first: active bots by rating, then in the order they entered
 * (`candidates` is in that order). A gauntlet's challenger leads, whatever its rating. Retired bots
 * are left out: a bot retired before the start never plays.
 *
 * @example
 * seedEntrants([{ id: 'a', rating: 1500, retired: false }, { id: 'b', rating: 1600, retired: false }], null);
 * // ['b', 'a']
 */
export function seedEntrants(candidates: readonly SeedCandidate[], challenger: string | null): string[] {
  const order = new Map(candidates.map((c, k) => [c.id, k]));
  const seeded = candidates
    .filter((c) => !c.retired && c.id !== challenger)
    .sort((a, b) => b.rating - a.rating || order.get(a.id)! - order.get(b.id)!)
    .map((c) => c.id);
  const leads = candidates.some((c) => c.id === challenger && !c.retired);
  return challenger !== null && leads ? [challenger, ...seeded] : seeded;
}

/**
 * The most Swiss rounds `n` entrants can play without a repeated pairing: everyone meets everyone
 * once, and in an odd field each round someone has a bye.
 */
export function maxSwissRounds(n: number): number {
  return n % 2 === 0 ? n - 1 : n;
}

type Format = Pick<TournamentRecord, 'format' | 'gamesPerPairing'>;

/** A round robin's or a gauntlet's whole schedule (from src/tournament); Swiss has none. */
export function fixedSchedule(t: Format, seeds: readonly string[]): Round[] | null {
  if (t.format === 'round-robin') return scheduleRoundRobin(seeds, t.gamesPerPairing);
  if (t.format === 'gauntlet') return scheduleGauntlet(seeds[0]!, seeds.slice(1), t.gamesPerPairing);
  return null;
}

/** How many rounds the tournament plays: its schedule's length, or a Swiss tournament's `roundCount`. */
export function roundCountOf(
  t: Format & Pick<TournamentRecord, 'roundCount'>,
  seeds: readonly string[],
): number {
  return fixedSchedule(t, seeds)?.length ?? t.roundCount ?? 0;
}

/** One game of a planned round. */
export interface PlannedGame extends Pairing {
  /** False when a bot of it has withdrawn: the game is listed, not played. */
  readonly played: boolean;
  /** The balanced opening it starts from; null for the start position (and for a game not played). */
  readonly opening: string | null;
}

export type RoundPlan =
  | {
      readonly kind: 'round';
      readonly number: number;
      readonly bye: string | null;
      readonly games: readonly PlannedGame[];
    }
  /** Nothing more can be paired: a Swiss field with fewer than two active bots, or no repeat-free pairing. */
  | { readonly kind: 'end' };

export interface RoundInput {
  readonly tournament: Format & Pick<TournamentRecord, 'openings'>;
  /** The seeds fixed at the start. */
  readonly seeds: readonly string[];
  /** The round to plan, from 1. */
  readonly number: number;
  /** Rounds stored so far (all ended). */
  readonly rounds: readonly TournamentRound[];
  /** The results so far (Swiss pairs by them; other formats do not read them). */
  readonly results: Results;
  /** Seeds retired since the start: they play no more games. */
  readonly withdrawn: ReadonlySet<string>;
  /** A balanced opening's id, drawn at random. */
  readonly drawOpening: () => string;
}

const pairKey = (a: string, b: string) => (a < b ? `${a} ${b}` : `${b} ${a}`);

/**
 * Round `number`'s games. A round robin or gauntlet takes its round of the fixed schedule; a Swiss
 * round is paired among the active bots from the games between them (a withdrawn bot is no longer
 * paired, and no bye goes to it). With `gamesPerPairing` 2, a Swiss pairing plays both its games in
 * the round; the fixed schedules put the return game in the next round themselves.
 *
 * A game with a withdrawn bot is listed as not played (it scores nothing); a game between two is
 * dropped. Openings: with `balanced`, the first game of a pairing draws one and every later game of
 * the same two bots reuses it, so both games of a pair start alike; with `standard`, none.
 *
 * @example
 * planRound({ tournament, seeds, number: 1, rounds: [], results: { games: [] }, withdrawn: new Set(), drawOpening });
 * // { kind: 'round', number: 1, bye: null, games: [{ white: 'a', black: 'd', played: true, opening: 'o-…' }, …] }
 */
export function planRound(input: RoundInput): RoundPlan {
  const { tournament: t, seeds, number, withdrawn } = input;
  let pairings: Pairing[];
  let bye: string | null;
  const schedule = fixedSchedule(t, seeds);
  if (schedule !== null) {
    const round = schedule[number - 1];
    if (round === undefined) return { kind: 'end' };
    pairings = [...round.pairings];
    bye = round.bye;
  } else {
    const active = seeds.filter((id) => !withdrawn.has(id));
    if (active.length < 2) return { kind: 'end' };
    const among = (id: string) => !withdrawn.has(id);
    const results: Results = {
      games: input.results.games.filter((g) => among(g.white) && among(g.black)),
      byes: (input.results.byes ?? []).filter(among),
    };
    const paired = pairSwissRound(active, results, number);
    if (!paired.ok) return { kind: 'end' };
    pairings = paired.pairings.flatMap((p) =>
      t.gamesPerPairing === 2 ? [p, { white: p.black, black: p.white }] : [p],
    );
    bye = paired.bye;
  }

  const openings = new Map<string, string>();
  for (const round of input.rounds) {
    for (const game of round.games) {
      if (game.opening !== null) openings.set(pairKey(game.white, game.black), game.opening);
    }
  }
  const games: PlannedGame[] = [];
  for (const { white, black } of pairings) {
    const out = [white, black].filter((id) => withdrawn.has(id)).length;
    if (out === 2) continue;
    let opening: string | null = null;
    if (out === 0 && t.openings === 'balanced') {
      const key = pairKey(white, black);
      opening = openings.get(key) ?? input.drawOpening();
      openings.set(key, opening);
    }
    games.push({ white, black, played: out === 0, opening });
  }
  return { kind: 'round', number, bye, games };
}

/**
 * The score of a match for a tournament: the winner, a draw, or null while it runs and for an
 * aborted match (the arena's failure, which no bot should pay for). A fault loses the game; so does
 * a no-show (recorded without a winner before no-shows counted as faults).
 */
export function scoredResult(match: MatchRecord): GameResult | null {
  if (match.status !== 'finished' || match.result === null) return null;
  const { winner, reason, fault } = match.result;
  if (reason === 'aborted') return null;
  if (winner !== null) return winner;
  if (reason === 'no-show' && fault !== undefined) return fault.player === 'black' ? 'white' : 'black';
  return 'draw';
}

/** True when every match of `round` has ended (finished or aborted); a round without matches has. */
export function roundEnded(round: TournamentRound, matches: ReadonlyMap<string, MatchRecord>): boolean {
  return round.games.every((game) => {
    if (game.match === null) return true;
    return matchEnded(matches.get(game.match)?.status);
  });
}

/**
 * What the tournament's matches scored so far, in the order played (round, then board), for the
 * pure core: games with a result, and Swiss byes (a round robin's sit-out scores nothing).
 */
export function resultsOf(
  format: TournamentRecord['format'],
  rounds: readonly TournamentRound[],
  matches: ReadonlyMap<string, MatchRecord>,
): Results {
  const games: TournamentGame[] = [];
  for (const round of rounds) {
    for (const game of round.games) {
      const match = game.match === null ? undefined : matches.get(game.match);
      const result = match === undefined ? null : scoredResult(match);
      if (result === null) continue;
      const forfeit = match?.result?.fault !== undefined && match.result.reason !== 'completed';
      games.push({ white: game.white, black: game.black, result, ...(forfeit ? { forfeit: true } : {}) });
    }
  }
  if (format !== 'swiss') return { games };
  return { games, byes: rounds.flatMap((round) => (round.bye === null ? [] : [round.bye])) };
}
