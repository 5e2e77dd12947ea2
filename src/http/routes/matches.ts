import { Router } from 'express';
import type { MatchService } from '../../arena/matches.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { createMatchBody, listMatchesQuery, matchIdParams } from '../schemas.ts';

/** /v1/matches: create matches and follow them. */
export function matchesRouter(matches: MatchService, present: Presenter): Router {
  const router = Router();

  router.get('/v1/matches', async (req, res) => {
    const query = parse(listMatchesQuery, req.query, 'query');
    const page = await matches.list({
      botId: query.bot,
      status: query.status,
      limit: query.limit,
      cursor: query.cursor,
    });
    const viewer = principalOf(res);
    res.json({
      items: page.items.map((match) => present.matchSummary(match, viewer)),
      nextCursor: page.nextCursor,
    });
  });

  router.post('/v1/matches', async (req, res) => {
    const body = parse(createMatchBody, req.body, 'body');
    const match = await matches.create(principalOf(res), body);
    res
      .status(202)
      .location(`/v1/matches/${match.id}`)
      .json(present.match(match, [], principalOf(res)));
  });

  router.get('/v1/matches/:matchId', async (req, res) => {
    const { matchId } = parse(matchIdParams, req.params, 'params');
    const { match, moves } = await matches.get(matchId);
    res.json(present.match(match, moves, principalOf(res)));
  });

  return router;
}
