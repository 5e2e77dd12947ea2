import { type Request, type Response, Router } from 'express';
import type { Redis } from 'ioredis';
import { requireBot } from '../../arena/principal.ts';
import { botEvents, LEASE_MARGIN_MS, type PullService } from '../../arena/pull.ts';
import type { PullStore } from '../../store/pull-store.ts';
import type { ArenaStore } from '../../store/store.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { markMovePlayed } from '../rate-limit.ts';
import {
  idempotencyKeyHeader,
  lastEventIdHeader,
  matchIdParams,
  matchStateQuery,
  myMatchesQuery,
  pullActionBody,
} from '../schemas.ts';

export interface PullRouterDeps {
  readonly service: PullService;
  readonly store: ArenaStore;
  readonly pull: PullStore;
  readonly blocking: () => Redis;
  readonly present: Presenter;
  readonly keepAliveMs: number;
}

/** Aborts when the client goes away, so a long poll or a stream frees its Redis connection. */
function closedSignal(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  req.on('close', () => {
    if (!res.writableEnded) controller.abort();
  });
  return controller.signal;
}

const botIdOf = (res: Response) => requireBot(principalOf(res));

/** Pull mode: the state/action API and the bot's event stream. */
export function pullRouter(deps: PullRouterDeps): Router {
  const router = Router();

  router.get('/v1/matches/:matchId/state', async (req, res) => {
    const { matchId } = parse(matchIdParams, req.params, 'params');
    const { waitMs } = parse(matchStateQuery, req.query, 'query');
    res.json(await deps.service.awaitTurn(principalOf(res), matchId, waitMs, closedSignal(req, res)));
  });

  router.post('/v1/matches/:matchId/actions', async (req, res) => {
    const { matchId } = parse(matchIdParams, req.params, 'params');
    const body = parse(pullActionBody, req.body, 'body');
    const key = parse(idempotencyKeyHeader, req.get('idempotency-key'), 'headers');
    const { state, played } = await deps.service.act(principalOf(res), matchId, body, key);
    if (played) markMovePlayed(res);
    res.json(state);
  });

  router.get('/v1/bots/me/matches', async (req, res) => {
    const botId = botIdOf(res);
    const query = parse(myMatchesQuery, req.query, 'query');
    const page = await deps.store.listMatches({
      botId,
      status: query.status,
      limit: query.limit,
      cursor: query.cursor,
    });
    res.json({
      items: page.items.map((match) => deps.present.matchSummary(match, principalOf(res))),
      nextCursor: page.nextCursor,
    });
  });

  router.get('/v1/bots/me/events', async (req, res) => {
    const botId = botIdOf(res);
    const lastEventId = parse(lastEventIdHeader, req.get('last-event-id'), 'headers');
    // Each turn of the loop below waits at most keepAliveMs, then renews the lease.
    const lease = await deps.service.holdStream(botId, deps.keepAliveMs * 2 + LEASE_MARGIN_MS);
    // Where to start is fixed before the client sees the stream open, so no event falls in between.
    let start: { after: string; snapshot: boolean };
    try {
      start = {
        after: lastEventId ?? (await deps.pull.lastEventId(botId)),
        snapshot: lastEventId === undefined,
      };
    } catch (error) {
      await lease.release();
      throw error;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    const closed = closedSignal(req, res);
    for await (const item of botEvents(deps.service, deps, botId, start, closed, deps.keepAliveMs, lease)) {
      if (item === 'keep-alive') res.write(': keep-alive\n\n');
      else res.write(`${item.id ? `id: ${item.id}\n` : ''}event: ${item.type}\ndata: ${item.data}\n\n`);
    }
    res.end();
  });

  return router;
}
