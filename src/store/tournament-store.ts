import type { MatchRecord, MatchRules, Page } from '../model/records.ts';

/**
 * What the store keeps of tournaments. Storage shapes, not wire shapes: src/http maps them to the
 * documents of openapi.yaml. Times are epoch milliseconds.
 */

export type TournamentFormat = 'round-robin' | 'swiss' | 'gauntlet';
/** `cancelled`: a tournament due to start by itself that had too few entrants at its start time. */
export type TournamentStatus = 'open' | 'running' | 'finished' | 'cancelled';
/** `balanced`: each pairing starts from a balanced opening drawn at random; `standard`: the start position. */
export type TournamentOpenings = 'standard' | 'balanced';

export interface TournamentRecord {
  readonly id: string;
  readonly name: string;
  readonly format: TournamentFormat;
  readonly status: TournamentStatus;
  readonly openings: TournamentOpenings;
  readonly gamesPerPairing: 1 | 2;
  readonly rated: boolean;
  /** The rated games a bot needs to enter by itself (0 for records from before the setting). */
  readonly minRatedGames: number;
  /** Every match's rules but the opening (which `openings` decides per pairing). */
  readonly rules: MatchRules;
  /** A Swiss tournament's rounds; a round robin's or gauntlet's schedule length, from the start. */
  readonly roundCount: number | null;
  /** A gauntlet's challenger, who plays every other entrant; null for other formats. */
  readonly challenger: string | null;
  readonly createdAt: number;
  /** When the arena starts it by itself (a scheduled event, or the admin's choice); null: the admin starts it. */
  readonly startsAt: number | null;
  /** The active entrants it needs to start by itself at `startsAt`; cancelled with fewer. */
  readonly minEntrants: number;
  /** The configured series a scheduled event belongs to (EVENTS); null for the admin's tournaments. */
  readonly series: string | null;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  /** The entrants as seeded at the start (by rating, then entry), fixed from then on; null while open. */
  readonly seeds: readonly string[] | null;
  /** How many rounds have been paired (and their matches created): round `roundsCreated` is the current one. */
  readonly roundsCreated: number;
  /** Counts entries and withdrawals, so a start can check the entrants it seeded are still the entrants. */
  readonly entrantsVersion: number;
}

/** A tournament as listed: its record and how many entrants it has. */
export interface TournamentListing {
  readonly tournament: TournamentRecord;
  readonly entrantCount: number;
}

/** One game of a round. */
export interface RoundGame {
  /** Its match; null for a game not played because one of its bots had withdrawn. */
  readonly match: string | null;
  readonly white: string;
  readonly black: string;
  /** The balanced opening it starts from; null for the start position. */
  readonly opening: string | null;
}

export interface TournamentRound {
  /** From 1. */
  readonly number: number;
  /** Who sits the round out: a Swiss bye (1 point), a round robin's sit-out (none); null for none. */
  readonly bye: string | null;
  /** Board order. */
  readonly games: readonly RoundGame[];
}

/** A round to store, with the new matches its games name (all queued). */
export interface NewRound {
  readonly round: TournamentRound;
  readonly matches: readonly MatchRecord[];
}

export interface TournamentState {
  readonly tournament: TournamentRecord;
  /** Bot ids in the order they entered. */
  readonly entrants: readonly string[];
  /** By number, from 1. */
  readonly rounds: readonly TournamentRound[];
}

export type EnterOutcome = 'entered' | 'already-entered' | 'not-open' | 'full' | 'missing' | 'changed';
export type LeaveOutcome = 'left' | 'not-entered' | 'not-open' | 'challenger' | 'missing';

/**
 * Tournaments in storage. Every change of state is one atomic, resend-safe write: a start or a
 * round is stored only if the tournament is still as read (so a round is paired exactly once
 * however many workers try at once), and together with its matches.
 */
export interface TournamentStore {
  /** Stores a new open tournament with its first entrants (entered at `createdAt`, in that order). */
  createTournament(tournament: TournamentRecord, entrants: readonly string[]): Promise<void>;
  getTournament(id: string): Promise<TournamentState | null>;
  /** Newest first. */
  listTournaments(limit: number, cursor?: string): Promise<Page<TournamentListing>>;
  /**
   * Enters a bot in an open tournament of fewer than `maxEntrants` entrants; with `entrantsVersion`,
   * only while its entries are still at that version (else `changed`): the entrants a caller
   * checked the bot against are still all there are.
   */
  enter(
    id: string,
    botId: string,
    now: number,
    maxEntrants: number,
    entrantsVersion?: number,
  ): Promise<EnterOutcome>;
  /** Withdraws a bot from an open tournament (a gauntlet's challenger stays). */
  leave(id: string, botId: string): Promise<LeaveOutcome>;
  /**
   * Starts an open tournament whose entries are still at `entrantsVersion`: fixes its seeds and
   * round count and stores round 1. False when it is no longer open or its entrants changed.
   */
  start(
    id: string,
    entrantsVersion: number,
    start: { readonly seeds: readonly string[]; readonly roundCount: number; readonly startedAt: number },
    first: NewRound,
  ): Promise<boolean>;
  /**
   * Stores round `after + 1` of a running tournament that has exactly `after` rounds, with its
   * matches. False (nothing written) when it has more already or is not running: another worker
   * paired it first.
   */
  addRound(id: string, after: number, next: NewRound): Promise<boolean>;
  /** Cancels an open tournament (status `cancelled`, `finishedAt` then); false when it was not open. */
  cancel(id: string, at: number): Promise<boolean>;
  /**
   * Deletes an open tournament that nobody entered, as if it had never been (an hourly event in a
   * quiet arena leaves no trace); false when it has entrants or is not open.
   */
  discard(id: string): Promise<boolean>;
  /** Ids of open tournaments whose `startsAt` is `now` or earlier, earliest first, at most `limit`. */
  dueToStart(now: number, limit: number): Promise<string[]>;
  /** Marks a running tournament of exactly `after` rounds finished; false when it was not. */
  finish(id: string, after: number, finishedAt: number): Promise<boolean>;
  /** Ids of running tournaments (for the workers' sweep), at most `limit`. */
  runningIds(limit: number): Promise<string[]>;
  /** Many matches in one round trip; null where there is none. */
  getMatches(ids: readonly string[]): Promise<(MatchRecord | null)[]>;
}
