import type { Config } from '../config.ts';
import type { BotStore } from '../store/bot-store.ts';
import type { Clock } from '../support/clock.ts';
import { ulid } from '../support/ids.ts';
import { digestBytes } from '../support/random.ts';
import { nextEventStart } from '../tournament/event-slots.ts';
import type { SoloService } from './solo.ts';
import type { DueStart, TournamentService } from './tournaments.ts';

export type EventSeries = Config['events']['series'][number];

export interface ScheduledEventsDeps {
  readonly tournaments: TournamentService;
  readonly bots: Pick<BotStore, 'activeBots'>;
  readonly clock: Clock;
  readonly series: readonly EventSeries[];
  /** The solo league, whose house entrants each look enters in the running week (when house bots play). */
  readonly soloLeague?: Pick<SoloService, 'enterHouseBots'>;
}

/** What one look at the schedule did. */
export interface EventsTick {
  /** Events started, cancelled or forgotten because their start time had come. */
  readonly due: readonly DueStart[];
  /** The ids of the events it created (each series' next one, when it did not exist yet). */
  readonly created: readonly string[];
  /** The house bots it entered in the solo league's running week. */
  readonly leagueEntries: readonly string[];
}

/**
 * The id of a series' event starting at `startsAt`: the same in every process, so however many
 * workers look at the schedule at once, each event is created once (the store refuses a second
 * tournament of one id). Its time part is when the event opens, so the newest open events list first.
 */
export function scheduledEventId(series: Pick<EventSeries, 'key' | 'every'>, startsAt: number): string {
  return `tournament_${ulid(startsAt - series.every, digestBytes(`${series.key}@${startsAt}`))}`;
}

/**
 * The arena's own events (EVENTS): each series always has its next event open for entries; when
 * an event's start time comes, it starts with the bots entered, or is cancelled with too few.
 * Every worker process' scheduler runs `tick` on a timer; it is safe to run anywhere, any number of
 * times: creation is keyed by the event's id and each start or cancel is a guarded write.
 */
export class ScheduledEvents {
  constructor(private readonly deps: ScheduledEventsDeps) {}

  async tick(): Promise<EventsTick> {
    const { tournaments, series } = this.deps;
    const due = await tournaments.startDue();
    const created: string[] = [];
    for (const one of series) {
      const id = await this.#ensureNext(one);
      if (id !== null) created.push(id);
    }
    const leagueEntries = (await this.deps.soloLeague?.enterHouseBots()) ?? [];
    return { due, created, leagueEntries };
  }

  /** Creates the series' next event unless it exists; its id when this call created it. */
  async #ensureNext(series: EventSeries): Promise<string | null> {
    const { tournaments, clock } = this.deps;
    const startsAt = nextEventStart(series.every, series.at, clock.now());
    const id = scheduledEventId(series, startsAt);
    if (await tournaments.exists(id)) return null;
    const bots = series.houseBots ? await this.#houseBots(series.rated) : [];
    await tournaments.create(
      { kind: 'admin' },
      {
        name: series.name,
        format: series.format,
        bots,
        ...(series.rounds === undefined ? {} : { rounds: series.rounds }),
        gamesPerPairing: series.gamesPerPairing,
        openings: series.openings,
        rated: series.rated,
        minRatedGames: series.minRatedGames,
        startsAt,
        minEntrants: series.minEntrants,
        series: { key: series.key, id },
      },
    );
    return id;
  }

  /** The house bots that may play the event: all of them, or for a rated one those that play rated games. */
  async #houseBots(rated: boolean): Promise<string[]> {
    const active = await this.deps.bots.activeBots();
    return active.filter((bot) => bot.house !== null && (!rated || bot.ratedPlay)).map((bot) => bot.id);
  }
}
