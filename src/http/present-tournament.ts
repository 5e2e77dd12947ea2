import type { TournamentDetails } from '../arena/tournaments.ts';
import type { components } from '../contract/index.ts';
import type { TournamentRecord } from '../store/tournament-store.ts';

/** Tournament records and views to the documents of openapi.yaml. */
type Schemas = components['schemas'];

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/**
 * A tournament as listed. Once started its entrants are its seeds (bots retired before the
 * start left out); before, every entry counts.
 */
export function tournamentSummary(t: TournamentRecord, entrantCount: number): Schemas['TournamentSummary'] {
  return {
    id: t.id,
    name: t.name,
    format: t.format,
    status: t.status,
    openings: t.openings,
    gamesPerPairing: t.gamesPerPairing,
    rated: t.rated,
    minRatedGames: t.minRatedGames,
    rules: t.rules,
    roundCount: t.roundCount,
    entrantCount: t.seeds?.length ?? entrantCount,
    createdAt: iso(t.createdAt),
    startedAt: isoOrNull(t.startedAt),
    finishedAt: isoOrNull(t.finishedAt),
    startsAt: isoOrNull(t.startsAt),
    minEntrants: t.minEntrants,
    series: t.series,
  };
}

/** A tournament with its entrants, rounds, standings, crosstable and strengths. */
export function tournamentDocument({
  tournament,
  entrantCount,
  view,
}: TournamentDetails): Schemas['Tournament'] {
  return {
    ...tournamentSummary(tournament, entrantCount),
    challenger: view.challenger,
    entrants: view.entrants.map((e) => ({ ...e })),
    tiebreak: view.tiebreak,
    rounds: view.rounds.map((round) => ({
      number: round.number,
      bye: round.bye,
      games: round.games.map((game) => ({ ...game })),
    })),
    standings: view.standings.map((row) => ({ ...row })),
    crosstable: {
      bots: [...view.crosstable.bots],
      cells: view.crosstable.cells.map((row) => row.map((cell) => cell.map((game) => ({ ...game })))),
    },
    strengths: view.strengths.map((s) => ({ ...s })),
  };
}
