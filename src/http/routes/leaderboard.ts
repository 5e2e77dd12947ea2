import { Router } from 'express';
import type { components } from '../../contract/index.ts';
import type { Stores } from '../../store/store.ts';
import { AnswerCache, jsonAnswer, sendJson } from '../answer-cache.ts';
import { hasQuery, parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { leaderboardQuery } from '../schemas.ts';

type LeaderboardPage = components['schemas']['LeaderboardPage'];

/** Pages are keyed by the client's offset and limit: a bounded number of them stay in memory. */
const CACHED_PAGES = 64;

export interface LeaderboardRouterOptions {
  /** How long a page is served from memory (0: never); ratings change only as matches finish. */
  readonly cacheMs: number;
  /** Rated games a bot needs to be ranked (LEADERBOARD_MIN_GAMES); bots with fewer are listed apart. */
  readonly minGames: number;
  /** Whether responses are validated against openapi.yaml, which needs `res.json`. */
  readonly validated: boolean;
}

/**
 * /v1/leaderboard: the ranked bots (at least `minGames` rated games), best rating first, ranks from
 * 1; and apart, the first `limit` unranked ones, the same on every page. Guests are never listed.
 */
export function leaderboardRouter(
  stores: Pick<Stores, 'ratings'>,
  present: Presenter,
  options: LeaderboardRouterOptions,
): Router {
  const router = Router();
  const pages =
    options.cacheMs > 0
      ? new AnswerCache({ ttlMs: options.cacheMs, maxEntries: CACHED_PAGES, shareLoads: true })
      : null;
  const page = async (offset: number, limit: number, pool: 'arena' | 'slow'): Promise<LeaderboardPage> => {
    const { minGames } = options;
    const split = await stores.ratings.leaderboardSplit({
      offset,
      limit,
      minGames,
      unrankedLimit: limit,
      ...(pool === 'slow' ? { pool } : {}),
    });
    const { strengthComputedAt } = split;
    return {
      items: split.ranked.map((row) => present.leaderboardEntry(row.rank, row.bot, row.strength)),
      total: split.rankedTotal,
      unranked: split.unranked.map((row) => present.leaderboardEntry(null, row.bot, row.strength)),
      unrankedTotal: split.unrankedTotal,
      minGames,
      strengthComputedAt: strengthComputedAt === null ? null : new Date(strengthComputedAt).toISOString(),
    };
  };
  // What a request without a query asks for (most do): the schema's defaults, parsed once.
  const firstPage = parse(leaderboardQuery, {}, 'query');
  router.get('/v1/leaderboard', async (req, res) => {
    const { offset, limit, pool } = hasQuery(req) ? parse(leaderboardQuery, req.query, 'query') : firstPage;
    const answer =
      pages === null
        ? jsonAnswer(await page(offset, limit, pool))
        : await pages.get(`${pool}:${offset}:${limit}`, async () => ({
            value: await page(offset, limit, pool),
            keep: true,
          }));
    sendJson(res, answer, options.validated);
  });
  return router;
}
