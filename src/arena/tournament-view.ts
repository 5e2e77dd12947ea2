/**
 * A tournament as its readers see it: entrants, rounds with every game's match and score, the
 * standings with their tie-break, the crosstable and the strengths from its own games. Pure: built
 * from the stored records with src/tournament, which does the scoring.
 */
import type { BotRecord, MatchRecord, MatchStatus, PlayerRef } from '../model/records.ts';
import type { TournamentState } from '../store/tournament-store.ts';
import {
  type CrossGame,
  crosstable,
  type GameResult,
  standings,
  tiebreakOf,
  tournamentStrengths,
} from '../tournament/index.ts';
import { resultsOf, scoredResult } from './tournament-plan.ts';

export interface EntrantView extends PlayerRef {
  /** Retired: it plays no more games. */
  readonly withdrawn: boolean;
}

export interface GameView {
  readonly matchId: string | null;
  readonly white: PlayerRef;
  readonly black: PlayerRef;
  readonly opening: string | null;
  /** A tournament's matches are the arena's own: never a challenge's pending, declined or expired. */
  readonly status: Extract<MatchStatus, 'queued' | 'running' | 'finished' | 'aborted'> | 'not-played';
  readonly result: GameResult | null;
}

export interface RoundView {
  readonly number: number;
  readonly bye: PlayerRef | null;
  readonly games: readonly GameView[];
}

export interface StandingView {
  readonly rank: number;
  readonly bot: PlayerRef;
  readonly points: number;
  readonly games: number;
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  readonly tiebreak: number;
}

export interface TournamentView {
  readonly entrants: readonly EntrantView[];
  readonly challenger: PlayerRef | null;
  readonly tiebreak: 'sonneborn-berger' | 'buchholz';
  readonly rounds: readonly RoundView[];
  readonly standings: readonly StandingView[];
  readonly crosstable: {
    readonly bots: readonly PlayerRef[];
    readonly cells: readonly (readonly (readonly CrossGame[])[])[];
  };
  readonly strengths: readonly {
    readonly bot: PlayerRef;
    readonly rating: number;
    readonly lower: number;
    readonly upper: number;
  }[];
}

/** Everything a view needs besides the tournament: its bots and its matches, by id. */
export interface ViewRecords {
  readonly bots: ReadonlyMap<string, BotRecord>;
  readonly matches: ReadonlyMap<string, MatchRecord>;
}

/**
 * The view of `state`. Entrants are the seeds once it has started, else the entries; standings
 * list every entrant (zeros before its first game). A bot whose record is gone is shown by its id.
 *
 * @example
 * const view = tournamentView(state, { bots, matches });
 * view.standings[0]?.bot.name; // the leader
 */
export function tournamentView(state: TournamentState, records: ViewRecords): TournamentView {
  const { tournament: t, rounds } = state;
  const ref = (id: string): PlayerRef => ({ id, name: records.bots.get(id)?.name ?? id });
  const ids = t.seeds ?? state.entrants;
  const results = resultsOf(t.format, rounds, records.matches);
  const table = ids.length === 0 ? [] : standings(t.format, ids, results);
  const order = table.map((row) => row.botId);
  const cross = ids.length === 0 ? { botIds: [], cells: [] } : crosstable(order, results);
  const fit = ids.length === 0 ? { ratings: [] } : tournamentStrengths(ids, results);
  return {
    entrants: ids.map((id) => ({ ...ref(id), withdrawn: records.bots.get(id)?.status === 'retired' })),
    challenger: t.challenger === null ? null : ref(t.challenger),
    tiebreak: tiebreakOf(t.format),
    rounds: rounds.map((round) => ({
      number: round.number,
      bye: round.bye === null ? null : ref(round.bye),
      games: round.games.map((game) => {
        const match = game.match === null ? undefined : records.matches.get(game.match);
        return {
          matchId: game.match,
          white: ref(game.white),
          black: ref(game.black),
          opening: game.opening,
          status: game.match === null ? 'not-played' : tournamentStatus(match?.status),
          result: match === undefined ? null : scoredResult(match),
        };
      }),
    })),
    standings: table.map((row) => ({
      rank: row.rank,
      bot: ref(row.botId),
      points: row.points,
      games: row.games,
      wins: row.wins,
      draws: row.draws,
      losses: row.losses,
      tiebreak: row.tiebreak,
    })),
    crosstable: { bots: cross.botIds.map(ref), cells: cross.cells },
    strengths: fit.ratings.map((r) => ({ bot: ref(r.id), rating: r.rating, lower: r.lower, upper: r.upper })),
  };
}

/** A tournament match's status as the view has it (see GameView.status); one not read yet is queued. */
function tournamentStatus(status: MatchStatus | undefined): GameView['status'] {
  return status === 'running' || status === 'finished' || status === 'aborted' ? status : 'queued';
}
