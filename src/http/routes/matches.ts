import { Router } from 'express';
import type { ChallengeService } from '../../arena/challenges.ts';
import type { MatchService } from '../../arena/matches.ts';
import { AnswerCache, sendJson } from '../answer-cache.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import type { ClientOrigin } from '../rate-limit.ts';
import {
  createMatchBody,
  declineChallengeBody,
  listMatchesQuery,
  matchIdParams,
  noQuery,
} from '../schemas.ts';

/** Finished matches served from memory, about 7 kB each (a 60-move game). */
const CACHED_FINISHED_MATCHES = 1000;

/** /v1/matches: create matches and follow them. */
export function matchesRouter(
  matches: MatchService,
  challenges: ChallengeService,
  present: Presenter,
  options: { readonly validated: boolean; readonly clientOrigin: ClientOrigin },
): Router {
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
    const match = await matches.create(principalOf(res), body, { origin: options.clientOrigin(req) });
    res
      .status(202)
      .location(`/v1/matches/${match.id}`)
      .json(present.match(match, [], principalOf(res)));
  });

  // A finished match never changes: anonymous visitors (who all see the same document) get it
  // from memory. Participants and the admin may see more (a fault's detail): they read Redis.
  const finished = new AnswerCache({
    ttlMs: Number.POSITIVE_INFINITY,
    maxEntries: CACHED_FINISHED_MATCHES,
    shareLoads: false,
  });
  router.get('/v1/matches/:matchId', async (req, res) => {
    const viewer = principalOf(res);
    // A finished match read before: its id was checked then.
    const kept = viewer === null ? finished.kept(req.params.matchId) : undefined;
    if (kept !== undefined) {
      sendJson(res, await kept, options.validated);
      return;
    }
    const { matchId } = parse(matchIdParams, req.params, 'params');
    if (viewer !== null) {
      const { match, moves } = await matches.read(viewer, matchId);
      res.json(present.match(match, moves, viewer));
      return;
    }
    const answer = await finished.get(matchId, async () => {
      const { match, moves } = await matches.read(null, matchId);
      return { value: present.match(match, moves, null), keep: match.status === 'finished' };
    });
    sendJson(res, answer, options.validated);
  });

  router.post('/v1/matches/:matchId/accept', async (req, res) => {
    const { matchId } = parse(matchIdParams, req.params, 'params');
    parse(noQuery, req.query, 'query');
    const match = await challenges.accept(principalOf(res), matchId);
    res.json(present.match(match, [], principalOf(res)));
  });

  router.post('/v1/matches/:matchId/decline', async (req, res) => {
    const { matchId } = parse(matchIdParams, req.params, 'params');
    parse(noQuery, req.query, 'query');
    const { reason } = parse(declineChallengeBody, req.body, 'body');
    const match = await challenges.decline(principalOf(res), matchId, reason ?? 'generic');
    res.json(present.match(match, [], principalOf(res)));
  });

  return router;
}
