import { SOLO_GAME_ID, type SoloOptions } from '../game/index.ts';
import { PermissionError } from '../model/errors.ts';
import { colorOfBot, type MatchRecord } from '../model/records.ts';
import type { Principal } from './principal.ts';

/**
 * The solo league's calendar: weeks from Monday 00:00 UTC, each with 20 layouts numbered from 2^30,
 * and the seal on a week's games (docs/solo.md). Pure: every answer comes from its arguments.
 */

/** The layouts of one league week. */
export const LEAGUE_LAYOUTS = 20;
/** League layouts are numbered from here up, 20 a week: below it, every layout is a practice one. */
export const LEAGUE_LAYOUT_BASE = 2 ** 30;
/** The league's scoring: token values, which split bots that capture as many tokens. */
export const LEAGUE_SCORING: SoloOptions['scoring'] = 'points';
const WEEK_MS = 7 * 24 * 3_600_000;
/** Week 0 of the league: a Monday, 00:00 UTC; every week starts on a Monday. */
const LEAGUE_EPOCH = Date.UTC(2026, 0, 5);

/** One week of the league: its id (the date of its Monday), its number, its span and its layouts. */
export interface LeagueWeek {
  readonly week: string;
  readonly index: number;
  readonly startsAt: number;
  readonly endsAt: number;
  readonly layouts: readonly number[];
}

/** The league week of index `index`. */
export function leagueWeek(index: number): LeagueWeek {
  const startsAt = LEAGUE_EPOCH + index * WEEK_MS;
  return {
    week: new Date(startsAt).toISOString().slice(0, 10),
    index,
    startsAt,
    endsAt: startsAt + WEEK_MS,
    layouts: Array.from(
      { length: LEAGUE_LAYOUTS },
      (_, i) => LEAGUE_LAYOUT_BASE + index * LEAGUE_LAYOUTS + i,
    ),
  };
}

/** The league week running at `now`. */
export function leagueWeekAt(now: number): LeagueWeek {
  return leagueWeek(Math.max(0, Math.floor((now - LEAGUE_EPOCH) / WEEK_MS)));
}

/** The league week named `week` (its Monday, `YYYY-MM-DD`), or null when no week has that id. */
export function leagueWeekNamed(week: string): LeagueWeek | null {
  const at = Date.parse(`${week}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(week) || Number.isNaN(at) || at < LEAGUE_EPOCH) return null;
  const index = (at - LEAGUE_EPOCH) / WEEK_MS;
  return Number.isInteger(index) ? leagueWeek(index) : null;
}

/** The week whose puzzle layout `layout` is, or null for a practice layout. */
export function leagueWeekOfLayout(layout: number): LeagueWeek | null {
  return layout < LEAGUE_LAYOUT_BASE
    ? null
    : leagueWeek(Math.floor((layout - LEAGUE_LAYOUT_BASE) / LEAGUE_LAYOUTS));
}

/**
 * Until when a game's moves and board are its player's alone: a league game's, until its week ends
 * (every entrant plays the same layouts, and another's game would show their tokens before they
 * are turned); null for any other match.
 */
export function sealedUntil(match: Pick<MatchRecord, 'game' | 'rules'>): number | null {
  if (match.game !== SOLO_GAME_ID || match.rules.layout === undefined) return null;
  return leagueWeekOfLayout(match.rules.layout)?.endsAt ?? null;
}

type SealedMatch = Pick<MatchRecord, 'game' | 'rules' | 'black' | 'white'>;

/** Whether `match`'s moves and board are hidden from `principal` at `now`: sealed, and it is neither its player nor the admin. */
export function isSealedFrom(principal: Principal | null, match: SealedMatch, now: number): boolean {
  const until = sealedUntil(match);
  if (until === null || until <= now || principal?.kind === 'admin') return false;
  return principal?.kind !== 'bot' || colorOfBot(match, principal.botId) === null;
}

/** Refuses (403 `matches/sealed`) to show `match`'s moves or board where `isSealedFrom` says so. */
export function assertUnsealed(principal: Principal | null, match: SealedMatch, now: number): void {
  if (!isSealedFrom(principal, match, now)) return;
  throw new PermissionError(
    'matches/sealed',
    `A league game's moves and board are shown to its player alone until its week ends (${new Date(sealedUntil(match)!).toISOString()}).`,
  );
}
