import type { BotRecord, MatchRecord } from '../model/records.ts';
import type { Stores } from '../store/store.ts';
import type { TournamentState, TournamentStore } from '../store/tournament-store.ts';
import type { Clock } from '../support/clock.ts';
import { planRound, resultsOf, roundEnded } from './tournament-plan.ts';
import type { RoundMaker } from './tournament-rounds.ts';

export interface TournamentProgressDeps {
  readonly stores: Pick<Stores, 'bots' | 'matches'>;
  readonly tournaments: TournamentStore;
  readonly rounds: RoundMaker;
  readonly clock: Clock;
  readonly onError?: (tournamentId: string, error: unknown) => void;
}

/** How many running tournaments one sweep looks at. */
const SWEEP_LIMIT = 200;

/** What one look at a tournament did. */
type Step = 'waiting' | 'paired' | 'lost-race' | 'finished' | 'done';

/**
 * Moves running tournaments on: when the last match of a round ends, the next round is paired and
 * its matches queued; after the last round, the tournament is finished. The workers call
 * `afterMatch` once a match's job has ended it (inside the job, so a worker that dies before this
 * leaves the job to be taken over and the step to be done there), and `sweep` on start and every
 * reconcile interval, which does the same for any tournament a failure left behind.
 *
 * Exactly once: a round is stored only by the store's guarded write that also checks the round
 * count it was planned after, so of two workers pairing the same round (the last two matches of a
 * round ending together, a sweep meeting a worker) one stores it and the other reads again.
 */
export class TournamentProgress {
  constructor(private readonly deps: TournamentProgressDeps) {}

  /** Moves on the tournament of match `matchId`, if it has one. */
  async afterMatch(matchId: string): Promise<void> {
    const match = await this.deps.stores.matches.getMatch(matchId);
    if (match?.tournament !== undefined) await this.advance(match.tournament.id);
  }

  /** Moves on every running tournament whose round has ended (a backstop for `afterMatch`). */
  async sweep(): Promise<void> {
    for (const id of await this.deps.tournaments.runningIds(SWEEP_LIMIT)) {
      try {
        await this.advance(id);
      } catch (error) {
        this.deps.onError?.(id, error);
      }
    }
  }

  /**
   * Pairs the next round of tournament `id` if its current round has ended, as many times as
   * rounds end at once (a round whose every game is not played ends as it is stored), or
   * finishes it. Safe to call at any time, from any number of processes at once.
   */
  async advance(id: string): Promise<void> {
    for (let steps = 0; steps < 10_000; steps++) {
      const step = await this.step(id);
      if (step === 'waiting' || step === 'finished' || step === 'done') return;
    }
    throw new Error(`tournament ${id} keeps changing`);
  }

  private async step(id: string): Promise<Step> {
    const { tournaments, clock } = this.deps;
    const state = await tournaments.getTournament(id);
    if (state === null || state.tournament.status !== 'running') return 'done';
    const { tournament: t, rounds } = state;
    const current = rounds.at(-1);
    // The current round's matches first: while it runs (the usual case), that is all there is to read.
    const currentMatches = await this.matchesOf(current === undefined ? [] : [current]);
    if (current !== undefined && !roundEnded(current, currentMatches)) return 'waiting';
    if (t.roundsCreated >= (t.roundCount ?? 0)) {
      return (await tournaments.finish(id, t.roundsCreated, clock.now())) ? 'finished' : 'lost-race';
    }
    const seeds = t.seeds ?? [];
    const bots = new Map(
      (await this.deps.stores.bots.getBots(seeds)).flatMap((bot) => (bot ? [[bot.id, bot] as const] : [])),
    );
    const plan = await this.plan(state, currentMatches, bots);
    if (plan.kind === 'end') {
      return (await tournaments.finish(id, t.roundsCreated, clock.now())) ? 'finished' : 'lost-race';
    }
    const next = this.deps.rounds.build(t, plan.number, plan.bye, plan.games, bots);
    if (!(await tournaments.addRound(id, t.roundsCreated, next))) return 'lost-race';
    await this.deps.rounds.enqueue(next);
    return 'paired';
  }

  private async plan(
    state: TournamentState,
    currentMatches: Map<string, MatchRecord>,
    bots: ReadonlyMap<string, BotRecord>,
  ) {
    const { tournament: t, rounds } = state;
    const withdrawn = new Set(
      [...bots.values()].flatMap((bot) => (bot.status === 'retired' ? [bot.id] : [])),
    );
    // Only Swiss pairs by results: the earlier rounds' matches are read for it alone.
    const matches =
      t.format === 'swiss'
        ? new Map([...(await this.matchesOf(rounds.slice(0, -1))), ...currentMatches])
        : currentMatches;
    return planRound({
      tournament: t,
      seeds: t.seeds ?? [],
      number: t.roundsCreated + 1,
      rounds,
      results: resultsOf(t.format, rounds, matches),
      withdrawn,
      drawOpening: this.deps.rounds.drawOpening,
    });
  }

  private async matchesOf(rounds: TournamentState['rounds']): Promise<Map<string, MatchRecord>> {
    const ids = rounds.flatMap((round) =>
      round.games.flatMap((game) => (game.match === null ? [] : [game.match])),
    );
    const found = await this.deps.tournaments.getMatches(ids);
    return new Map(found.flatMap((match) => (match ? [[match.id, match]] : [])));
  }
}
