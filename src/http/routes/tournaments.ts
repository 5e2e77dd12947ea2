import { Router } from 'express';
import type { TournamentService } from '../../arena/tournaments.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import { tournamentDocument, tournamentSummary } from '../present-tournament.ts';
import { createTournamentBody, listTournamentsQuery, tournamentIdParams } from '../schemas.ts';

/** /v1/tournaments: the admin creates and starts tournaments, bots enter and leave, anyone reads them. */
export function tournamentsRouter(tournaments: TournamentService): Router {
  const router = Router();

  router.get('/v1/tournaments', async (req, res) => {
    const { limit, cursor } = parse(listTournamentsQuery, req.query, 'query');
    const page = await tournaments.list(limit, cursor);
    res.json({
      items: page.items.map(({ tournament, entrantCount }) => tournamentSummary(tournament, entrantCount)),
      nextCursor: page.nextCursor,
    });
  });

  router.post('/v1/tournaments', async (req, res) => {
    const { startsAt, ...body } = parse(createTournamentBody, req.body, 'body');
    const created = await tournaments.create(principalOf(res), {
      ...body,
      ...(startsAt === undefined ? {} : { startsAt: Date.parse(startsAt) }),
    });
    res.status(201).location(`/v1/tournaments/${created.tournament.id}`).json(tournamentDocument(created));
  });

  router.get('/v1/tournaments/:tournamentId', async (req, res) => {
    const { tournamentId } = parse(tournamentIdParams, req.params, 'params');
    res.json(tournamentDocument(await tournaments.get(tournamentId)));
  });

  router.post('/v1/tournaments/:tournamentId/entries', async (req, res) => {
    const { tournamentId } = parse(tournamentIdParams, req.params, 'params');
    res.status(201).json(tournamentDocument(await tournaments.enter(principalOf(res), tournamentId)));
  });

  router.delete('/v1/tournaments/:tournamentId/entries', async (req, res) => {
    const { tournamentId } = parse(tournamentIdParams, req.params, 'params');
    await tournaments.leave(principalOf(res), tournamentId);
    res.status(204).end();
  });

  router.post('/v1/tournaments/:tournamentId/start', async (req, res) => {
    const { tournamentId } = parse(tournamentIdParams, req.params, 'params');
    res.json(tournamentDocument(await tournaments.start(principalOf(res), tournamentId)));
  });

  return router;
}
