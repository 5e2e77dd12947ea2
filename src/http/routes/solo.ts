import { Router } from 'express';
import { LEAGUE_SCORING, type LeagueWeek } from '../../arena/league-weeks.ts';
import type { SoloService } from '../../arena/solo.ts';
import type { Config } from '../../config.ts';
import type { components } from '../../contract/index.ts';
import { AnswerCache, jsonAnswer, sendJson } from '../answer-cache.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { noQuery, soloLeaderboardQuery, soloRequestBody } from '../schemas.ts';

type Schemas = components['schemas'];

/** A league week as the wire has it. */
function leagueOf(week: LeagueWeek, rated: Config['limits']['rated']): Schemas['SoloLeague'] {
  return {
    week: week.week,
    startsAt: new Date(week.startsAt).toISOString(),
    endsAt: new Date(week.endsAt).toISOString(),
    layouts: [...week.layouts],
    scoring: LEAGUE_SCORING,
    timeLimitMs: rated.timeLimitMs,
    overageMs: rated.overageMs,
  };
}

/** Weeks whose standings stay in memory: the running one and a few looked back at. */
const CACHED_WEEKS = 16;

export interface SoloRouterOptions {
  readonly limits: Config['limits'];
  /**
   * How long a week's standings are served from memory (LEADERBOARD_CACHE_MS; 0: never): working
   * them out reads every entrant's unfinished games, which no client should make the arena repeat.
   */
  readonly cacheMs: number;
  /** Whether responses are validated against openapi.yaml, which needs `res.json`. */
  readonly validated: boolean;
}

/** /v1/solo: solo games on a layout, and the weekly puzzle league (docs/solo.md). */
export function soloRouter(solo: SoloService, present: Presenter, options: SoloRouterOptions): Router {
  const router = Router();
  const { limits } = options;
  const weeks =
    options.cacheMs > 0
      ? new AnswerCache({ ttlMs: options.cacheMs, maxEntries: CACHED_WEEKS, shareLoads: true })
      : null;

  router.post('/v1/solo', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const body = parse(soloRequestBody, req.body, 'body');
    const match = await solo.start(principalOf(res), body);
    res
      .status(202)
      .location(`/v1/matches/${match.id}`)
      .json(present.matchSummary(match, principalOf(res)));
  });

  router.get('/v1/solo/league', (req, res) => {
    parse(noQuery, req.query, 'query');
    res.json(leagueOf(solo.league(), limits.rated));
  });

  router.post('/v1/solo/league/entries', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const { week, entry, bot } = await solo.enter(principalOf(res));
    const body: Schemas['SoloLeagueEntry'] = {
      week: week.week,
      bot: { id: bot.id, name: bot.name },
      matches: [...entry.matchIds],
    };
    res.status(201).json(body);
  });

  const leaderboard = async (week: string | undefined): Promise<Schemas['SoloLeaderboard']> => {
    const { week: league, standings } = await solo.standings(week);
    return {
      ...leagueOf(league, limits.rated),
      items: standings.map((line) => ({
        rank: line.rank,
        bot: { id: line.bot.id, name: line.bot.name },
        house: line.bot.house !== null,
        score: line.score,
        timeUsedMs: line.timeUsedMs,
        played: line.played,
        games: league.layouts.length,
      })),
    };
  };
  router.get('/v1/solo/leaderboard', async (req, res) => {
    const { week } = parse(soloLeaderboardQuery, req.query, 'query');
    const answer =
      weeks === null
        ? jsonAnswer(await leaderboard(week))
        : await weeks.get(week ?? 'running', async () => ({ value: await leaderboard(week), keep: true }));
    sendJson(res, answer, options.validated);
  });

  return router;
}
