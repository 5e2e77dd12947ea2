import { Router } from 'express';
import type { ArenaStore } from '../../store/store.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { leaderboardQuery } from '../schemas.ts';

/** /v1/leaderboard: active bots, best rating first. */
export function leaderboardRouter(store: ArenaStore, present: Presenter): Router {
  const router = Router();
  router.get('/v1/leaderboard', async (req, res) => {
    const { offset, limit } = parse(leaderboardQuery, req.query, 'query');
    const { rows, total, strengthComputedAt } = await store.leaderboard(offset, limit);
    res.json({
      items: rows.map((row) => present.leaderboardEntry(row.rank, row.bot, row.strength)),
      total,
      strengthComputedAt: strengthComputedAt === null ? null : new Date(strengthComputedAt).toISOString(),
    });
  });
  return router;
}
