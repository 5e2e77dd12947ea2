import { Router } from 'express';
import type { GuestService } from '../../arena/guests.ts';
import type { components } from '../../contract/index.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { noQuery } from '../schemas.ts';

/**
 * /v1/guests: registers a guest, a person playing from a browser, and answers it with its token,
 * as `POST /v1/bots` answers a new bot. Anonymous; rate-limited per client address in front of it.
 */
export function guestsRouter({ guests, present }: { guests: GuestService; present: Presenter }): Router {
  const router = Router();
  router.post('/v1/guests', async (req, res) => {
    parse(noQuery, req.query, 'query');
    // No body is needed; one sent must be empty.
    if (req.body !== undefined) parse(noQuery, req.body, 'body');
    const { bot, secrets } = await guests.register();
    const created: components['schemas']['CreatedBot'] = {
      ...present.bot(bot, { kind: 'bot', botId: bot.id }),
      token: secrets.token,
    };
    res.status(201).location(`/v1/bots/${bot.id}`).json(created);
  });
  return router;
}
