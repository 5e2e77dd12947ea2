import { Router } from 'express';
import type { ArenaStore } from '../../store/store.ts';
import { AnswerCache, jsonAnswer, sendJson } from '../answer-cache.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { leaderboardQuery } from '../schemas.ts';

/** Pages are keyed by the client's offset and limit: a bounded number of them stay in memory. */
const CACHED_PAGES = 64;

export interface LeaderboardRouterOptions {
  /** How long a page is served from memory (0: never); ratings change only as matches finish. */
  readonly cacheMs: number;
  /** Whether responses are validated against openapi.yaml, which needs `res.json`. */
  readonly validated: boolean;
}

/** /v1/leaderboard: active bots, best rating first. */
export function leaderboardRouter(
  store: ArenaStore,
  present: Presenter,
  options: LeaderboardRouterOptions,
): Router {
  const router = Router();
  const pages =
    options.cacheMs > 0
      ? new AnswerCache({ ttlMs: options.cacheMs, maxEntries: CACHED_PAGES, shareLoads: true })
      : null;
  const page = async (offset: number, limit: number) => {
    const { rows, total, strengthComputedAt } = await store.leaderboard(offset, limit);
    return {
      items: rows.map((row) => present.leaderboardEntry(row.rank, row.bot, row.strength)),
      total,
      strengthComputedAt: strengthComputedAt === null ? null : new Date(strengthComputedAt).toISOString(),
    };
  };
  router.get('/v1/leaderboard', async (req, res) => {
    const { offset, limit } = parse(leaderboardQuery, req.query, 'query');
    const answer =
      pages === null
        ? jsonAnswer(await page(offset, limit))
        : await pages.get(`${offset}:${limit}`, async () => ({
            value: await page(offset, limit),
            keep: true,
          }));
    sendJson(res, answer, options.validated);
  });
  return router;
}
