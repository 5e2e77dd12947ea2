import type { Config } from '../config.ts';
import { gameFor, SOLO_GAME_ID, type SoloOptions, solo } from '../game/index.ts';
import { HOUSE_BOTS } from '../house/roster.ts';
import { ConflictError, NotFoundError, PermissionError, RateLimitedError } from '../model/errors.ts';
import { isPausedAt } from '../model/pause.ts';
import { type BotRecord, type MatchRecord, matchEnded, queueClassOf } from '../model/records.ts';
import { replay } from '../model/replay.ts';
import type { MatchQueue } from '../queue/match-queue.ts';
import type { SoloLeagueEntry, SoloLeagueTally } from '../store/solo-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { newId } from '../support/ids.ts';
import {
  LEAGUE_SCORING,
  type LeagueWeek,
  leagueWeekAt,
  leagueWeekNamed,
  leagueWeekOfLayout,
} from './league-weeks.ts';
import { enqueueStored, queuedMatch, resolveRules } from './matches.ts';
import { type Principal, requireBot } from './principal.ts';

/**
 * The solo game for bots: a game on a layout of the bot's choice (`start`), and the puzzle league
 * (`enter`, `standings`): each week 20 layouts, played once by each bot that enters, ranked by total
 * score, ties going to the bot that took less time. Solo games touch no rating. docs/solo.md.
 */

export interface SoloServiceDeps {
  readonly stores: Pick<Stores, 'bots' | 'matches' | 'soloLeague'>;
  readonly queue: MatchQueue;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly limits: Config['limits'];
  readonly onEnqueueFailure?: (matchId: string, error: unknown) => void;
}

export interface SoloInput {
  readonly layout: number;
  readonly scoring?: SoloOptions['scoring'];
  readonly timeLimitMs?: number;
  readonly overageMs?: number;
}

/** The house engines that enter the league: each plays the solo game its own way (src/house/solo.ts). */
const SOLO_HOUSE_ENGINES = ['random', 'greedy'];

/** A bot's line in a week's standings. */
export interface LeagueStanding {
  readonly rank: number;
  readonly bot: BotRecord;
  readonly score: number;
  readonly timeUsedMs: number;
  /** Its games that have ended (of `LEAGUE_LAYOUTS`). */
  readonly played: number;
  readonly enteredAt: number;
}

/**
 * What an ended solo game counted, from its record alone: the score a replay of its moves gives
 * under its rules, and the time its player took (its moves' latencies).
 */
export function tallyOf(match: MatchRecord, moves: Parameters<typeof replay>[1]): SoloLeagueTally {
  const game = gameFor(match.game);
  const { position } = replay(match.rules, moves, game);
  const score = game.outcome(position, game.options(match.rules)).counts.black;
  return { score, timeUsedMs: moves.reduce((sum, move) => sum + move.latencyMs, 0) };
}

export class SoloService {
  constructor(private readonly deps: SoloServiceDeps) {}

  /**
   * Starts a solo game for the calling bot on `input.layout`. A layout of the running league week,
   * or of one to come, is refused: a bot could learn the week's tokens before it plays them there.
   */
  async start(principal: Principal | null, input: SoloInput): Promise<MatchRecord> {
    const botId = requireBot(principal);
    const { stores, clock, limits } = this.deps;
    const now = clock.now();
    const week = leagueWeekOfLayout(input.layout);
    if (week !== null && week.endsAt > now) {
      throw new PermissionError(
        'solo/league-layout',
        `Layout ${input.layout} is a puzzle of the league week ${week.week}; it can be practised once that week ends (${new Date(week.endsAt).toISOString()}).`,
      );
    }
    const bot = await this.#activeBot(botId);
    const times = resolveRules(
      {
        ...(input.timeLimitMs === undefined ? {} : { timeLimitMs: input.timeLimitMs }),
        ...(input.overageMs === undefined ? {} : { overageMs: input.overageMs }),
      },
      limits,
      { guest: bot.guest, challenge: true },
    );
    const match = soloMatch(this.deps, bot, {
      layout: input.layout,
      scoring: input.scoring ?? 'tokens',
      timeLimitMs: times.timeLimitMs,
      overageMs: times.overageMs,
      createdBy: bot.id,
      now,
    });
    const owned = bot.owner ? { ...match, challengerOwner: bot.owner.id } : match;
    const stored = await stores.matches.createMatch(owned, {
      maxActiveChallenges: limits.maxActiveChallengesPerBot,
    });
    if (stored === 'bot-retired') throw new ConflictError('bots/retired', `The bot ${bot.name} is retired.`);
    if (stored !== 'created') {
      throw new RateLimitedError(
        `A bot may have at most ${limits.maxActiveChallengesPerBot} challenges and solo games queued or running at once; wait for one to end.`,
        10,
        'matches/too-many-active',
      );
    }
    await enqueueStored(this.deps, owned.id, queueClassOf(owned, [bot]));
    return owned;
  }

  /** This week's league: its layouts and time control. */
  league(): LeagueWeek {
    return leagueWeekAt(this.deps.clock.now());
  }

  /**
   * Enters the calling bot in this week's league: its 20 games, one per layout, are queued at once
   * as the arena's own. Once a week: a second entry is a conflict.
   */
  async enter(
    principal: Principal | null,
  ): Promise<{ week: LeagueWeek; entry: SoloLeagueEntry; bot: BotRecord }> {
    const bot = await this.#activeBot(requireBot(principal));
    if (bot.guest) {
      throw new PermissionError('solo/guest', 'The league is for bots; a guest plays solo games at /play.');
    }
    if (isPausedAt(bot.paused, this.deps.clock.now())) {
      throw new PermissionError(
        'solo/paused',
        `${bot.name} is paused for its faults until ${new Date(bot.paused!.until).toISOString()}; it can enter once the pause ends.`,
      );
    }
    const entered = await this.enterBot(bot);
    if (entered === null) {
      throw new ConflictError('solo/entered', `${bot.name} has entered this week's league already.`);
    }
    return { ...entered, bot };
  }

  /**
   * Enters the house bots that play the solo game (random and greedy) in the running week, those not
   * entered yet, so that the league is never empty. Answers the ids it entered.
   */
  async enterHouseBots(): Promise<string[]> {
    const ids = HOUSE_BOTS.filter((bot) => SOLO_HOUSE_ENGINES.includes(bot.engine)).map((bot) => bot.id);
    const entered: string[] = [];
    for (const bot of await this.deps.stores.bots.getBots(ids)) {
      if (bot?.status !== 'active' || bot.house === null) continue;
      if ((await this.enterBot(bot)) !== null) entered.push(bot.id);
    }
    return entered;
  }

  /** Enters `bot` in this week's league; null when it had entered already. */
  async enterBot(bot: BotRecord): Promise<{ week: LeagueWeek; entry: SoloLeagueEntry } | null> {
    const { stores, clock, limits } = this.deps;
    const now = clock.now();
    const week = leagueWeekAt(now);
    const matches = week.layouts.map((layout) =>
      soloMatch(this.deps, bot, {
        layout,
        scoring: LEAGUE_SCORING,
        ...limits.rated,
        createdBy: 'admin',
        now,
      }),
    );
    const entry: SoloLeagueEntry = { botId: bot.id, enteredAt: now, matchIds: matches.map((m) => m.id) };
    // The entry first: two entries at once store one, and only its games are made.
    if (!(await stores.soloLeague.enter(week.week, entry))) return null;
    const stored = await stores.matches.createMatches(matches, new Map()).catch(async (error: unknown) => {
      await stores.soloLeague.withdraw(week.week, bot.id);
      throw error;
    });
    if (stored === 'bot-retired') {
      await stores.soloLeague.withdraw(week.week, bot.id);
      throw new ConflictError('bots/retired', `The bot ${bot.name} is retired.`);
    }
    // An entry waits behind the arena's rated games, as challenges do: twenty games a bot, queued at
    // once (the house bots' too, forty each week), must not hold up matchmaking.
    for (const match of matches) await enqueueStored(this.deps, match.id, 'challenge');
    return { week, entry };
  }

  /**
   * A week's standings: every entrant's total score over its ended games (each worked out from the
   * game's record once, then kept), best first; ties go to less time used, then the earlier entry.
   */
  async standings(weekId?: string): Promise<{ week: LeagueWeek; standings: LeagueStanding[] }> {
    const { stores, clock } = this.deps;
    const week = weekId === undefined ? leagueWeekAt(clock.now()) : leagueWeekNamed(weekId);
    if (week === null) throw new NotFoundError('solo/no-week', `No league week is named ${weekId}.`);
    const [entries, tallies] = await Promise.all([
      stores.soloLeague.entries(week.week),
      stores.soloLeague.tallies(week.week),
    ]);
    const fresh = new Map<string, SoloLeagueTally>();
    const open = entries.flatMap((entry) => entry.matchIds).filter((id) => !tallies.has(id));
    await Promise.all(
      open.map(async (id) => {
        const match = await stores.matches.getMatch(id);
        if (match === null || !matchEnded(match.status)) return;
        fresh.set(id, tallyOf(match, await stores.matches.getMoves(id)));
      }),
    );
    await stores.soloLeague.keepTallies(week.week, fresh);
    const bots = await stores.bots.getBots(entries.map((entry) => entry.botId));
    const lines = entries.flatMap((entry, i) => {
      const bot = bots[i];
      if (!bot) return [];
      let score = 0;
      let timeUsedMs = 0;
      let played = 0;
      for (const id of entry.matchIds) {
        const tally = tallies.get(id) ?? fresh.get(id);
        if (tally === undefined) continue;
        score += tally.score;
        timeUsedMs += tally.timeUsedMs;
        played++;
      }
      return [{ bot, score, timeUsedMs, played, enteredAt: entry.enteredAt }];
    });
    lines.sort(
      (a, b) =>
        b.score - a.score ||
        a.timeUsedMs - b.timeUsedMs ||
        a.enteredAt - b.enteredAt ||
        a.bot.id.localeCompare(b.bot.id),
    );
    return { week, standings: lines.map((line, i) => ({ rank: i + 1, ...line })) };
  }

  async #activeBot(botId: string): Promise<BotRecord> {
    const bot = await this.deps.stores.bots.getBot(botId);
    if (bot === null) throw new NotFoundError('bots/not-found', `No bot has the id ${botId}.`);
    if (bot.status !== 'active') throw new ConflictError('bots/retired', `The bot ${bot.name} is retired.`);
    return bot;
  }
}

/** A queued solo game of `bot`, which sits on both sides of the record and plays as black. */
function soloMatch(
  deps: Pick<SoloServiceDeps, 'random'>,
  bot: BotRecord,
  game: SoloOptions & {
    readonly timeLimitMs: number;
    readonly overageMs: number;
    readonly createdBy: string;
    readonly now: number;
  },
): MatchRecord {
  const options = solo.options(game);
  const player = { id: bot.id, name: bot.name };
  const match = queuedMatch({
    id: newId('match', game.now, deps.random),
    black: player,
    white: player,
    rules: {
      firstPlayer: 'black',
      captureRule: 'all',
      scoring: options.scoring,
      layout: options.layout,
      timeLimitMs: game.timeLimitMs,
      overageMs: game.overageMs,
    },
    rated: false,
    createdBy: game.createdBy,
    createdAt: game.now,
  });
  return { ...match, game: SOLO_GAME_ID };
}
