import type { Config } from '../config.ts';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  type ValidationIssue,
} from '../model/errors.ts';
import { isPausedAt } from '../model/pause.ts';
import {
  type BotRecord,
  type MatchRecord,
  type MatchRules,
  matchEnded,
  type Page,
} from '../model/records.ts';
import type { Stores } from '../store/store.ts';
import type {
  EnterOutcome,
  TournamentFormat,
  TournamentListing,
  TournamentOpenings,
  TournamentRecord,
  TournamentState,
  TournamentStore,
} from '../store/tournament-store.ts';
import { BoundedMap } from '../support/bounded-map.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { newId } from '../support/ids.ts';
import { ratedRules, resolveRules } from './matches.ts';
import { type Principal, requireAdmin, requireBot } from './principal.ts';
import { maxSwissRounds, planRound, roundCountOf, seedEntrants } from './tournament-plan.ts';
import type { RoundMaker } from './tournament-rounds.ts';
import { type TournamentView, tournamentView } from './tournament-view.ts';

/** The most entrants a tournament takes: a round robin of 64 is already 2,016 pairings. */
export const MAX_ENTRANTS = 64;
/** Reads and checks of a rated tournament's entrants an entry makes while others enter meanwhile. */
const ENTER_ATTEMPTS = 5;

/** Ended matches a service keeps in memory (about 1 kB each), the oldest dropped first. */
const ENDED_MATCHES_KEPT = 10_000;

export interface TournamentServiceDeps {
  readonly stores: Pick<Stores, 'bots'>;
  readonly tournaments: TournamentStore;
  readonly rounds: RoundMaker;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly limits: Config['limits'];
  /** See Config.sameOperatorGames: off, a bot may not enter a rated tournament beside its operator's. */
  readonly sameOperatorGames: boolean;
}

export interface NewTournamentInput {
  readonly name: string;
  readonly format: TournamentFormat;
  readonly bots?: readonly string[];
  readonly rounds?: number;
  readonly gamesPerPairing: 1 | 2;
  readonly openings: TournamentOpenings;
  readonly rules?: Partial<MatchRules>;
  readonly rated: boolean;
  readonly minRatedGames: number;
  /** When the arena starts it by itself; without it, the admin starts it. */
  readonly startsAt?: number;
  /** The active entrants a start at `startsAt` needs (2 by default). */
  readonly minEntrants?: number;
  /** A scheduled event's series and id: each (series, start) names one event, whoever creates it. */
  readonly series?: { readonly key: string; readonly id: string };
}

/** What a start at a tournament's `startsAt` came to. */
export interface DueStart {
  readonly id: string;
  readonly outcome: 'started' | 'cancelled' | 'discarded';
}

/** A tournament with everything its page shows. */
export interface TournamentDetails {
  readonly tournament: TournamentRecord;
  readonly entrantCount: number;
  readonly view: TournamentView;
}

const invalid = (code: string, message: string, path: string, issue: string) =>
  new InvalidRequestError(code, message, [{ path, message: issue }]);

const notFound = (id: string) =>
  new NotFoundError('tournaments/not-found', `No tournament has the id ${id}.`);
const notOpen = () =>
  new ConflictError('tournaments/not-open', 'The tournament has started: its entrants are fixed.');

/**
 * Tournaments as the API offers them: the admin creates and starts them, bots enter and leave
 * while they are open (entering is a bot's consent to play them), anyone reads them. Once started,
 * the workers play them round by round (see TournamentProgress).
 */
export class TournamentService {
  /**
   * The records of ended matches read so far: an ended match's record never changes, so a
   * tournament's page reads only its games still queued or running, where it read every game each
   * time (a round robin of 64 paired is 4,032 matches).
   */
  readonly #endedMatches = new BoundedMap<string, MatchRecord>(ENDED_MATCHES_KEPT);

  constructor(private readonly deps: TournamentServiceDeps) {}

  async create(principal: Principal | null, input: NewTournamentInput): Promise<TournamentDetails> {
    requireAdmin(principal);
    const rules = this.rulesOf(input);
    const bots = input.bots ?? [];
    if (input.format === 'swiss' && input.rounds === undefined) {
      throw invalid(
        'tournaments/rounds-required',
        'A Swiss tournament needs rounds.',
        'body.rounds',
        'required for swiss',
      );
    }
    if (input.format !== 'swiss' && input.rounds !== undefined) {
      throw invalid(
        'tournaments/rounds-not-allowed',
        `A ${input.format} plays every pairing of its schedule: it takes no rounds.`,
        'body.rounds',
        'only for swiss',
      );
    }
    if (input.format === 'gauntlet' && bots.length === 0) {
      throw invalid(
        'tournaments/challenger-required',
        "A gauntlet's first bot is its challenger: name it in bots.",
        'body.bots',
        'must name the challenger first',
      );
    }
    await this.checkBots(bots, input.rated);
    const { clock, random } = this.deps;
    const now = clock.now();
    if (input.startsAt !== undefined && input.startsAt <= now) {
      throw invalid(
        'tournaments/starts-in-past',
        'startsAt must lie in the future.',
        'body.startsAt',
        'in the past',
      );
    }
    const tournament: TournamentRecord = {
      id: input.series?.id ?? newId('tournament', now, random),
      name: input.name,
      format: input.format,
      status: 'open',
      openings: input.openings,
      gamesPerPairing: input.gamesPerPairing,
      rated: input.rated,
      minRatedGames: input.minRatedGames,
      rules,
      roundCount: input.format === 'swiss' ? (input.rounds ?? null) : null,
      challenger: input.format === 'gauntlet' ? bots[0]! : null,
      createdAt: now,
      startsAt: input.startsAt ?? null,
      minEntrants: input.minEntrants ?? 2,
      series: input.series?.key ?? null,
      startedAt: null,
      finishedAt: null,
      seeds: null,
      roundsCreated: 0,
      entrantsVersion: 0,
    };
    await this.deps.tournaments.createTournament(tournament, bots);
    return this.get(tournament.id);
  }

  /** The rules of every match: the rated rules, or the request's within the server's bounds. */
  private rulesOf(input: NewTournamentInput): MatchRules {
    if (input.rated && input.rules !== undefined) {
      throw invalid(
        'tournaments/rated-rules-fixed',
        'A rated tournament is played under the rated rules (see GET /v1/games/reversi); leave rules out.',
        'body.rules',
        'not allowed with rated: true',
      );
    }
    if (input.rules !== undefined && 'opening' in input.rules) {
      throw invalid(
        'tournaments/opening-in-rules',
        "A tournament's openings field decides each game's opening.",
        'body.rules.opening',
        'set by openings',
      );
    }
    const rules = input.rated ? ratedRules(this.deps.limits) : resolveRules(input.rules, this.deps.limits);
    if (input.openings === 'balanced' && rules.captureRule !== 'all') {
      throw invalid(
        'tournaments/openings-need-capture-all',
        'Balanced openings are lines of play where every trapped line flips: they need captureRule all.',
        'body.openings',
        'needs rules.captureRule all',
      );
    }
    return rules;
  }

  private async checkBots(ids: readonly string[], rated: boolean): Promise<void> {
    const found = await this.deps.stores.bots.getBots(ids);
    const issues = (status: 'missing' | 'retired'): ValidationIssue[] =>
      found.flatMap((bot, i) =>
        (status === 'missing' ? bot === null : bot?.status === 'retired')
          ? [{ path: `body.bots.${i}`, message: status === 'missing' ? 'no such bot' : 'retired' }]
          : [],
      );
    const missing = issues('missing');
    if (missing.length > 0) {
      throw new InvalidRequestError(
        'tournaments/unknown-bot',
        'A bot named in bots does not exist.',
        missing,
      );
    }
    const retired = issues('retired');
    if (retired.length > 0) {
      throw new InvalidRequestError('tournaments/retired-bot', 'A bot named in bots is retired.', retired);
    }
    const unwilling = found.flatMap((bot, i) =>
      rated && bot?.ratedPlay === false ? [{ path: `body.bots.${i}`, message: 'plays no rated games' }] : [],
    );
    if (unwilling.length > 0) {
      throw new InvalidRequestError(
        'tournaments/not-eligible',
        'A bot named in bots plays no rated games (ratedPlay is false): a rated tournament cannot take it.',
        unwilling,
      );
    }
  }

  async get(id: string): Promise<TournamentDetails> {
    const state = await this.deps.tournaments.getTournament(id);
    if (state === null) throw notFound(id);
    return this.details(state);
  }

  /** Whether a tournament of this id exists (in any status). */
  async exists(id: string): Promise<boolean> {
    return (await this.deps.tournaments.getTournament(id)) !== null;
  }

  list(limit: number, cursor?: string): Promise<Page<TournamentListing>> {
    return this.deps.tournaments.listTournaments(limit, cursor);
  }

  async enter(principal: Principal | null, id: string): Promise<TournamentDetails> {
    const botId = requireBot(principal);
    const bot = await this.deps.stores.bots.getBot(botId);
    if (bot?.guest) {
      throw new PermissionError('tournaments/guest', 'Guests play single games at /play, not tournaments.');
    }
    let outcome: EnterOutcome = 'changed';
    for (let attempt = 0; outcome === 'changed' && attempt < ENTER_ATTEMPTS; attempt++) {
      const state = await this.deps.tournaments.getTournament(id);
      if (state === null) throw notFound(id);
      const { tournament, entrants } = state;
      // Entries are checked, seeds the admin names are not: unchecked, 64 bots registered that hour
      // filled an open tournament (and could feed a rated one's wins to one of their own).
      const paused = bot !== null && isPausedAt(bot.paused, this.deps.clock.now());
      if (bot && tournament.rated && !bot.ratedPlay) {
        throw new PermissionError(
          'tournaments/not-eligible',
          'This bot plays no rated games (ratedPlay is false): it may enter unrated tournaments only.',
        );
      }
      if (bot && (paused || bot.ratedGames < tournament.minRatedGames)) {
        throw new PermissionError(
          'tournaments/not-eligible',
          paused
            ? `A bot that matchmaking has paused cannot enter a tournament until its pause ends (${new Date(bot.paused!.until).toISOString()}).`
            : `This tournament takes bots with at least ${tournament.minRatedGames} rated games; this one has ${bot.ratedGames}.`,
        );
      }
      // Checked against the entrants as read, and entered only while they are still all there are.
      // An owner is a fact, checked always; an address only guesses, and the setting may waive it.
      const byAddress = bot !== null && tournament.rated && !this.deps.sameOperatorGames;
      const checked = bot !== null && tournament.rated && (byAddress || bot.owner !== null);
      const opponents = tournament.challenger === null ? entrants : [tournament.challenger];
      if (checked && (await this.#operatorBeside(bot, opponents, byAddress))) {
        throw new PermissionError(
          'tournaments/same-operator',
          'A bot of the same owner as, or registered from the same address as, a bot it would play in this rated tournament cannot enter it.',
        );
      }
      outcome = await this.deps.tournaments.enter(
        id,
        botId,
        this.deps.clock.now(),
        MAX_ENTRANTS,
        checked ? tournament.entrantsVersion : undefined,
      );
    }
    if (outcome === 'changed') {
      throw new ConflictError('tournaments/entries-changing', 'The entries keep changing; try again.');
    }
    if (outcome === 'missing') throw notFound(id);
    if (outcome === 'not-open') throw notOpen();
    if (outcome === 'already-entered') {
      throw new ConflictError(
        'tournaments/already-entered',
        'This bot is entered in the tournament already.',
      );
    }
    if (outcome === 'full') {
      throw new ConflictError('tournaments/full', `A tournament takes at most ${MAX_ENTRANTS} entrants.`);
    }
    return this.get(id);
  }

  /**
   * Whether an active bot of `opponents` other than `bot` has its owner, or (with `byAddress`) was
   * registered from its address. Not its URL's host, as matchmaking also counts: nobody proves a
   * URL theirs, so a bot naming another's host could keep it out by entering first, and learn that
   * host from the refusal.
   */
  async #operatorBeside(bot: BotRecord, opponents: readonly string[], byAddress: boolean): Promise<boolean> {
    const others = await this.deps.stores.bots.getBots(opponents.filter((id) => id !== bot.id));
    return others.some(
      (other) =>
        other?.status === 'active' &&
        ((bot.owner !== null && other.owner?.id === bot.owner.id) ||
          (byAddress && bot.registeredFrom !== null && other.registeredFrom === bot.registeredFrom)),
    );
  }

  async leave(principal: Principal | null, id: string): Promise<void> {
    const botId = requireBot(principal);
    const outcome = await this.deps.tournaments.leave(id, botId);
    if (outcome === 'missing') throw notFound(id);
    if (outcome === 'not-open') throw notOpen();
    if (outcome === 'not-entered') {
      throw new NotFoundError('tournaments/not-entered', 'This bot is not entered in the tournament.');
    }
    if (outcome === 'challenger') {
      throw new ConflictError(
        'tournaments/challenger-stays',
        "A gauntlet's challenger cannot leave it: it is what the gauntlet is about.",
      );
    }
  }

  /**
   * Seeds the active entrants, fixes the round count and stores round 1 with its matches, then
   * queues them. Entries that change meanwhile make it seed again.
   */
  async start(principal: Principal | null, id: string): Promise<TournamentDetails> {
    requireAdmin(principal);
    return this.#start(id, 2);
  }

  /**
   * Starts the open tournaments whose start time has come, with at least their `minEntrants`
   * active entrants; cancels those with fewer (and forgets those nobody entered). Several processes
   * may run it at once: each start and cancel is guarded, so one of them wins.
   */
  async startDue(limit = 20): Promise<DueStart[]> {
    const { tournaments, clock } = this.deps;
    const done: DueStart[] = [];
    for (const id of await tournaments.dueToStart(clock.now(), limit)) {
      const state = await tournaments.getTournament(id);
      if (state?.tournament.status !== 'open') continue;
      try {
        await this.#start(id, state.tournament.minEntrants);
        done.push({ id, outcome: 'started' });
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        if (state.entrants.length === 0 && (await tournaments.discard(id))) {
          done.push({ id, outcome: 'discarded' });
        } else if (await tournaments.cancel(id, clock.now())) {
          done.push({ id, outcome: 'cancelled' });
        }
      }
    }
    return done;
  }

  async #start(id: string, minEntrants: number): Promise<TournamentDetails> {
    const { tournaments, rounds, clock } = this.deps;
    for (let attempt = 1; attempt <= 20; attempt++) {
      const state = await tournaments.getTournament(id);
      if (state === null) throw notFound(id);
      const { tournament: t } = state;
      if (t.status !== 'open') throw notOpen();
      const bots = await this.botsById(state.entrants);
      const seeds = seedEntrants(
        state.entrants.map((botId) => {
          const bot = bots.get(botId);
          return {
            id: botId,
            rating: bot?.rating ?? 0,
            // A bot that has stopped consenting to rated play since it entered sits a rated one out.
            retired: bot === undefined || bot.status === 'retired' || (t.rated && !bot.ratedPlay),
          };
        }),
        t.challenger,
      );
      this.checkField(t, seeds, minEntrants);
      const roundCount = roundCountOf(t, seeds);
      const plan = planRound({
        tournament: t,
        seeds,
        number: 1,
        rounds: [],
        results: { games: [] },
        withdrawn: new Set(),
        drawOpening: rounds.drawOpening,
      });
      if (plan.kind === 'end') throw new Error(`tournament ${id}: a first round must pair`);
      const first = rounds.build(t, 1, plan.bye, plan.games, bots);
      if (
        await tournaments.start(id, t.entrantsVersion, { seeds, roundCount, startedAt: clock.now() }, first)
      ) {
        await rounds.enqueue(first);
        return this.get(id);
      }
    }
    throw new Error(`could not start tournament ${id}: its entries keep changing`);
  }

  /** Refuses a start the field cannot play. */
  private checkField(t: TournamentRecord, seeds: readonly string[], minEntrants: number): void {
    if (t.challenger !== null && seeds[0] !== t.challenger) {
      throw new ConflictError('tournaments/challenger-retired', "The gauntlet's challenger is retired.");
    }
    if (seeds.length < Math.max(2, minEntrants)) {
      throw new ConflictError(
        'tournaments/too-few-entrants',
        `A tournament needs at least ${Math.max(2, minEntrants)} active entrants to start; it has ${seeds.length}.`,
      );
    }
    if (t.format === 'swiss' && (t.roundCount ?? 0) > maxSwissRounds(seeds.length)) {
      throw new ConflictError(
        'tournaments/too-many-rounds',
        `${seeds.length} entrants can play at most ${maxSwissRounds(seeds.length)} Swiss rounds without meeting twice.`,
      );
    }
  }

  private async botsById(ids: readonly string[]): Promise<Map<string, BotRecord>> {
    const found = await this.deps.stores.bots.getBots([...new Set(ids)]);
    return new Map(found.flatMap((bot) => (bot ? [[bot.id, bot] as const] : [])));
  }

  /** The records of matches `ids` (those that exist): ended ones from memory, the rest from the store. */
  private async matchesById(ids: readonly string[]): Promise<Map<string, MatchRecord>> {
    const byId = new Map<string, MatchRecord>();
    const unread: string[] = [];
    for (const id of ids) {
      const ended = this.#endedMatches.get(id);
      if (ended === undefined) unread.push(id);
      else byId.set(id, ended);
    }
    for (const match of await this.deps.tournaments.getMatches(unread)) {
      if (match === null) continue;
      byId.set(match.id, match);
      if (!matchEnded(match.status)) continue;
      this.#endedMatches.set(match.id, match);
    }
    return byId;
  }

  private async details(state: TournamentState): Promise<TournamentDetails> {
    const { tournament: t, rounds } = state;
    const ids = [...(t.seeds ?? state.entrants), ...(t.challenger === null ? [] : [t.challenger])];
    for (const round of rounds) for (const game of round.games) ids.push(game.white, game.black);
    const matchIds = rounds.flatMap((round) =>
      round.games.flatMap((g) => (g.match === null ? [] : [g.match])),
    );
    const [bots, byId] = await Promise.all([this.botsById(ids), this.matchesById(matchIds)]);
    return {
      tournament: t,
      entrantCount: state.entrants.length,
      view: tournamentView(state, { bots, matches: byId }),
    };
  }
}
