import type { Config } from '../config.ts';
import { type ReversiOptions, reversi } from '../game/index.ts';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  type ValidationIssue,
} from '../model/errors.ts';
import { isPausedAt } from '../model/pause.ts';
import {
  type BotRecord,
  type MatchRecord,
  type MatchRules,
  type MoveRecord,
  type Page,
  queueClassOf,
} from '../model/records.ts';
import type { MatchQueue } from '../queue/match-queue.ts';
import { type Opening, openings, RulesError } from '../reversi/index.ts';
import type { BotAnnouncement, MatchQuery } from '../store/match-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { ID_PATTERN, newId } from '../support/ids.ts';
import { challengeOffer } from './challenges.ts';
import { assertUnsealed, isSealedFrom } from './league-weeks.ts';
import { type Principal, requireAdmin, requireBotOrAdmin } from './principal.ts';

export interface MatchServiceDeps {
  readonly stores: Pick<Stores, 'bots' | 'matches'>;
  readonly queue: MatchQueue;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly limits: Config['limits'];
  readonly onEnqueueFailure?: (matchId: string, error: unknown) => void;
  /**
   * Asks a push bot that asks for its challenges (see `ChallengeService.askPushBot`), after the
   * pending match is stored; without it, such a bot answers through the API alone.
   */
  readonly askPushBot?: (match: MatchRecord, target: BotRecord) => void;
}

export interface NewMatchInput {
  readonly black: string;
  readonly white: string;
  readonly rules?: Partial<MatchRules>;
  readonly rated: boolean;
  /**
   * The opening a match made by the arena starts from (the matchmaker's paired games): rated
   * matches take no `rules`, so their opening comes this way. Over `rules.opening` when both are set.
   */
  readonly opening?: string;
  /** `slow`: a rated match of the slow pool, at the slow time control (the matchmaker's). */
  readonly pool?: 'slow';
}

/** How long a bot at its cap of active challenges is told to wait before trying again. */
const CHALLENGE_RETRY_AFTER_SECONDS = 10;

/**
 * The game of every match the API creates: Reversi, the arena's one production game (its rules
 * options are the ones `MatchRules` and the HTTP contract name).
 */
export const ARENA_GAME = reversi;

/** The balanced openings a match may start from, most played first (`standard` is not among them). */
export const ARENA_OPENINGS: readonly Opening[] = openings();

/** The rules a match is played under when the request leaves them out. */
export function defaultRules(limits: Config['limits']): MatchRules {
  return {
    ...ARENA_GAME.defaultOptions,
    timeLimitMs: limits.timeLimitMs.default,
    overageMs: limits.overageMs.default,
  };
}

/** The rules of every rated match: the standard rules under the arena's rated time control. */
export function ratedRules(limits: Config['limits']): MatchRules {
  return { ...defaultRules(limits), ...limits.rated };
}

/** The rules of the slow pool's rated matches: the rated rules at the slow time control. */
export function slowPoolRules(limits: Config['limits']): MatchRules {
  return { ...ratedRules(limits), ...limits.slowPool };
}

/**
 * `rules` starting from `opening`: with its id when it is a balanced opening, without one for
 * `standard` or none. Throws `InvalidRequestError` naming `body.rules.opening` for an opening the
 * game refuses: an unknown id, or one it cannot play under these rules (single-direction capture).
 */
export function withOpening(rules: MatchRules, opening: string | undefined): MatchRules {
  const { opening: _, ...rest } = rules;
  let options: ReversiOptions;
  try {
    // A Reversi match's rules (the solo game's never reach here).
    const reversiRules = rest as Partial<ReversiOptions>;
    options = ARENA_GAME.options({ ...reversiRules, ...(opening === undefined ? {} : { opening }) });
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    throw new InvalidRequestError('request/invalid', 'The match cannot start from this opening.', [
      { path: 'body.rules.opening', message: error.message },
    ]);
  }
  return options.opening === undefined ? rest : { ...rest, opening: options.opening };
}

/**
 * The rules of a match a guest plays in, when it names none: a person's time control, the guest
 * per-move limit (GUEST_TIME_LIMIT_MS_DEFAULT) and no overage bank.
 */
export function guestDefaultRules(limits: Config['limits']): MatchRules {
  return { ...defaultRules(limits), timeLimitMs: limits.guest.timeLimitMs.default, overageMs: 0 };
}

/**
 * Fills defaults, checks the time options against the server's bounds and the opening against the
 * rules. With `guest` (a guest plays in the match) the per-move limit may go up to the guest
 * maximum and the defaults are `guestDefaultRules`; bots' own matches keep the usual bounds.
 */
export function resolveRules(
  input: Partial<MatchRules> | undefined,
  limits: Config['limits'],
  options: { readonly guest?: boolean; readonly challenge?: boolean } = {},
): MatchRules {
  const guest = options.guest === true;
  const { opening, ...rules } = { ...(guest ? guestDefaultRules(limits) : defaultRules(limits)), ...input };
  // A person (a guest) and a bot's challenge may take longer a move than the arena's own matches.
  const max = guest
    ? limits.guest.timeLimitMs.max
    : options.challenge === true
      ? limits.challengeTimeLimitMs.max
      : limits.timeLimitMs.max;
  const bounds = {
    timeLimitMs: { ...limits.timeLimitMs, max },
    overageMs: limits.overageMs,
  };
  const issues: ValidationIssue[] = [];
  for (const field of ['timeLimitMs', 'overageMs'] as const) {
    const { min, max } = bounds[field];
    if (rules[field] < min || rules[field] > max) {
      issues.push({ path: `body.rules.${field}`, message: `must be between ${min} and ${max}` });
    }
  }
  if (issues.length > 0) {
    throw new InvalidRequestError(
      'request/invalid',
      'The rules options are outside the server bounds.',
      issues,
    );
  }
  return withOpening(rules, opening);
}

/** A bot was active when the match was prepared and retired before it was stored. */
function retiredMeanwhile(): ConflictError {
  return new ConflictError('bots/retired', 'One of the bots retired while the match was being made.');
}

/**
 * Creating and reading matches; the workers play them. A match a bot creates with its token is a
 * challenge: unrated, only against a bot that accepts challenges and is not paused, and capped per
 * creator. Rated matches come from the arena alone (the matchmaker, the admin), under rated rules.
 */
export class MatchService {
  constructor(private readonly deps: MatchServiceDeps) {}

  /**
   * `origin` says where the request came from (an opaque key of the client's address group): a
   * challenge keeps it while active, for the cap on one origin's challenges aimed at a bot.
   */
  async create(
    principal: Principal | null,
    input: NewMatchInput,
    options: { readonly origin?: string } = {},
  ): Promise<MatchRecord> {
    const [black, white] = await Promise.all([this.#botId(input.black), this.#botId(input.white)]);
    const prepared = await this.#prepare(principal, { ...input, black, white });
    const { challenger, opponent, queuedAs } = prepared;
    const { stores, limits } = this.deps;
    // A house bot plays in the worker, with no server of its own to overload: people at /play may
    // all play it at once, from anywhere.
    const capped = challenger !== null && !opponent?.house;
    const match: MatchRecord =
      capped && options.origin !== undefined ? { ...prepared.match, origin: options.origin } : prepared.match;
    const stored = await stores.matches.createMatch(
      match,
      challenger === null
        ? {}
        : {
            maxActiveChallenges: limits.maxActiveChallengesPerBot,
            maxChallengesByOwner: limits.maxActiveChallengesPerOwner,
            ...(capped
              ? {
                  maxChallengesAgainst: limits.maxChallengesAgainstBot,
                  maxChallengesAgainstFromOrigin: limits.maxChallengesAgainstBotPerAddress,
                }
              : {}),
            ...(prepared.announce === null ? {} : { announce: prepared.announce }),
          },
    );
    if (stored === 'bot-retired') throw retiredMeanwhile();
    if (stored === 'opponent-busy' || stored === 'opponent-busy-from-origin') {
      throw new RateLimitedError(
        stored === 'opponent-busy'
          ? `${opponent?.name} already has ${limits.maxChallengesAgainstBot} challenges queued or running; try again once one has ended.`
          : `${opponent?.name} already has ${limits.maxChallengesAgainstBotPerAddress} challenges queued or running from your address; try again once one has ended.`,
        CHALLENGE_RETRY_AFTER_SECONDS,
        'matches/opponent-busy',
      );
    }
    if (stored === 'too-many-active') {
      throw new RateLimitedError(
        `A bot may have at most ${limits.maxActiveChallengesPerBot} challenges pending, queued or running at once; wait for one to end.`,
        CHALLENGE_RETRY_AFTER_SECONDS,
        'matches/too-many-active',
      );
    }
    if (stored === 'owner-busy') {
      throw new RateLimitedError(
        `An account's bots may have at most ${limits.maxActiveChallengesPerOwner} challenges pending, queued or running at once; wait for one to end.`,
        CHALLENGE_RETRY_AFTER_SECONDS,
        'matches/too-many-active',
      );
    }
    if (match.status === 'pending') {
      // It waits for its target's answer: expired by a delayed job (and the workers' sweep).
      await this.deps.queue
        .expireChallengeLater(match.id, this.deps.limits.challengeAnswerMs)
        .catch((error: unknown) => this.deps.onEnqueueFailure?.(match.id, error));
      if (opponent?.url) this.deps.askPushBot?.(match, opponent);
      return match;
    }
    await enqueueStored(this.deps, match.id, queuedAs);
    return match;
  }

  /**
   * Creates matches the arena makes together, all or none: a matchmaking pairing's paired games (one
   * opening, colours swapped). Made one by one, a failure between two (a crash, Redis lost) left a
   * lone game whose opening favoured one of the bots. Each input is checked as `create` checks it;
   * the admin's (the arena's) alone. `colorBalance` (each bot's games as black minus as white, see
   * `ArenaStore.colorBalances`) is stored with them.
   */
  async createTogether(
    principal: Principal | null,
    inputs: readonly NewMatchInput[],
    colorBalance: ReadonlyMap<string, number> = new Map(),
  ): Promise<MatchRecord[]> {
    requireAdmin(principal);
    const matches: MatchRecord[] = [];
    for (const input of inputs) matches.push((await this.#prepare(principal, input)).match);
    // Refused as existing only when this very write was resent by the connection after its answer
    // was lost (the ids are new): they are stored either way; enqueue them.
    if ((await this.deps.stores.matches.createMatches(matches, colorBalance)) === 'bot-retired')
      throw retiredMeanwhile();
    for (const match of matches) await enqueueStored(this.deps, match.id);
    return matches;
  }

  /** A bot a challenge names by its id or by its name (`house-greedy`): its id. */
  async #botId(idOrName: string): Promise<string> {
    if (ID_PATTERN.bot.test(idOrName)) return idOrName;
    const id = await this.deps.stores.bots.findBotIdByName(idOrName);
    if (id === null) throw new NotFoundError('bots/not-found', `No bot has the name ${idOrName}.`);
    return id;
  }

  /**
   * The queued match `input` asks for, once every rule allows it, the bot challenging, if one is,
   * and how it waits in the queue.
   */
  async #prepare(
    principal: Principal | null,
    input: NewMatchInput,
  ): Promise<{
    match: MatchRecord;
    challenger: string | null;
    /** The challenger's opponent, for a challenge. */
    opponent: BotRecord | null;
    queuedAs: 'challenge' | undefined;
    /** The `challenge` event a pending challenge tells its target, in the write that stores it. */
    announce: BotAnnouncement | null;
  }> {
    const who = requireBotOrAdmin(principal, [input.black, input.white], 'create a match between these bots');
    const challenger = who.kind === 'bot' ? who.botId : null;
    if (input.black === input.white) {
      throw new InvalidRequestError('matches/same-bot', 'A bot cannot play itself.', [
        { path: 'body.white', message: 'must differ from black' },
      ]);
    }
    if (challenger !== null && input.rated) {
      throw new PermissionError(
        'matches/rated-by-arena-only',
        "Rated matches are made by the arena's matchmaking; a match created with a bot's token is unrated.",
      );
    }
    if (input.rated && input.rules !== undefined) {
      throw new InvalidRequestError(
        'matches/rated-rules-fixed',
        'A rated match is played under the rated rules (see GET /v1/games/reversi); leave rules out.',
        [{ path: 'body.rules', message: 'not allowed with rated: true' }],
      );
    }
    const { stores, clock, random, limits } = this.deps;
    const [black, white] = await stores.bots.getBots([input.black, input.white]);
    for (const [bot, id] of [
      [black, input.black],
      [white, input.white],
    ] as const) {
      if (!bot) throw new NotFoundError('bots/not-found', `No bot has the id ${id}.`);
      if (bot.status !== 'active') throw new ConflictError('bots/retired', `The bot ${bot.name} is retired.`);
    }
    // A guest is a person at /play: never rated, and allowed a person's time control.
    const guest = black!.guest || white!.guest;
    if (guest && input.rated) {
      throw new PermissionError('matches/guest-unrated', "A guest's matches are always unrated.");
    }
    if (input.pool === 'slow' && !(input.rated && who.kind === 'admin')) {
      throw new PermissionError(
        'matches/slow-pool',
        "The slow pool's matches are the matchmaker's, and rated.",
      );
    }
    const rules = input.rated
      ? withOpening(input.pool === 'slow' ? slowPoolRules(limits) : ratedRules(limits), input.opening)
      : resolveRules(
          { ...input.rules, ...(input.opening === undefined ? {} : { opening: input.opening }) },
          limits,
          { guest, challenge: challenger !== null },
        );
    const challengerBot = challenger === null ? null : black!.id === challenger ? black! : white!;
    const opponent = challenger === null ? null : black!.id === challenger ? white! : black!;
    const now = clock.now();
    if (opponent !== null) {
      if (isPausedAt(opponent.paused, now)) {
        throw new PermissionError(
          'matches/challenge-declined',
          `${opponent.name} is paused for its faults and cannot be challenged until ${new Date(opponent.paused!.until).toISOString()}.`,
        );
      }
      if (opponent.challenges === 'refuse') {
        throw new ConflictError('matches/challenge-refused', `${opponent.name} does not accept challenges.`);
      }
    }
    const queued = queuedMatch({
      id: newId('match', now, random),
      black: { id: black!.id, name: black!.name },
      white: { id: white!.id, name: white!.name },
      rules,
      rated: input.rated,
      createdBy: challenger ?? 'admin',
      createdAt: now,
      ...(input.pool === undefined ? {} : { pool: input.pool }),
    });
    const owned = challengerBot?.owner ? { ...queued, challengerOwner: challengerBot.owner.id } : queued;
    const asks = opponent?.challenges === 'ask';
    const match: MatchRecord = asks
      ? { ...owned, status: 'pending', answerBy: now + limits.challengeAnswerMs }
      : owned;
    const announce = asks ? challengeAnnouncement(match, challengerBot!, opponent!) : null;
    return { match, challenger, opponent, queuedAs: queueClassOf(match, [black, white]), announce };
  }

  /**
   * A match and its moves as `viewer` may see them: refused while it is a league game sealed from
   * all but its player (see league-weeks.ts).
   */
  async read(viewer: Principal | null, id: string): Promise<{ match: MatchRecord; moves: MoveRecord[] }> {
    const read = await this.get(id);
    assertUnsealed(viewer, read.match, this.deps.clock.now());
    return read;
  }

  /** Whether `viewer` may not see `match`'s moves now (a sealed league game). */
  sealedFrom(viewer: Principal | null, match: MatchRecord): boolean {
    return isSealedFrom(viewer, match, this.deps.clock.now());
  }

  async get(id: string): Promise<{ match: MatchRecord; moves: MoveRecord[] }> {
    const [match, moves] = await Promise.all([
      this.deps.stores.matches.getMatch(id),
      this.deps.stores.matches.getMoves(id),
    ]);
    if (match === null) throw new NotFoundError('matches/not-found', `No match has the id ${id}.`);
    return { match, moves };
  }

  list(query: MatchQuery): Promise<Page<MatchRecord>> {
    return this.deps.stores.matches.listMatches(query);
  }
}

/** The `challenge` event a bot that asks hears of a challenge aimed at it. */
function challengeAnnouncement(
  match: MatchRecord,
  challenger: BotRecord,
  target: BotRecord,
): BotAnnouncement {
  return {
    botId: target.id,
    type: 'challenge',
    data: JSON.stringify(challengeOffer(match, challenger, target)),
  };
}

/**
 * Queues a match already stored as queued. One the queue cannot take now is reported to
 * `onEnqueueFailure` and left to the workers' reconciler, which enqueues it once the queue answers.
 */
export async function enqueueStored(
  deps: Pick<MatchServiceDeps, 'queue' | 'onEnqueueFailure'>,
  matchId: string,
  queuedAs?: 'challenge',
): Promise<void> {
  try {
    await deps.queue.enqueue(matchId, queuedAs);
  } catch (error) {
    deps.onEnqueueFailure?.(matchId, error);
  }
}

/** A new match of the arena's game, queued, with nothing played: what every creator stores. */
export function queuedMatch(
  fields: Pick<MatchRecord, 'id' | 'black' | 'white' | 'rules' | 'rated' | 'createdBy' | 'createdAt'> &
    Partial<Pick<MatchRecord, 'tournament' | 'pool'>>,
): MatchRecord {
  return {
    ...fields,
    game: ARENA_GAME.id,
    status: 'queued',
    startedAt: null,
    finishedAt: null,
    moveCount: 0,
    result: null,
    ratings: null,
  };
}
