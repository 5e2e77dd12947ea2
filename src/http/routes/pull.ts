import { type Response, Router } from 'express';
import { requireBot } from '../../arena/principal.ts';
import { botEvents, LEASE_MARGIN_MS, type PullService, presenceSeconds } from '../../arena/pull.ts';
import type { BotEventStore } from '../../store/pull-store.ts';
import type { Stores } from '../../store/store.ts';
import { AnswerCache, sendJson } from '../answer-cache.ts';
import { principalOf } from '../auth.ts';
import { hasQuery, parse } from '../parse.ts';
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
import { closingOf } from '../shutdown.ts';
import { openStream, STREAM_HEADERS, stopSignal, writeArenaClosing, writeItem } from '../sse.ts';

export interface PullRouterDeps {
  readonly service: PullService;
  readonly stores: Pick<Stores, 'matches'>;
  readonly pull: BotEventStore;
  readonly present: Presenter;
  readonly keepAliveMs: number;
  /** How long a spectator's view of a match's state is served from memory (0: never). */
  readonly spectatorCacheMs: number;
  /** Responses are validated against openapi.yaml: cached answers go through `res.json` too. */
  readonly validated: boolean;
}

/** The matches whose spectator view is kept at once; past it, the least recently read go. */
const CACHED_SPECTATOR_STATES = 1000;

const botIdOf = (res: Response) => requireBot(principalOf(res));

/** Pull mode: the state/action API and the bot's event stream. */
export function pullRouter(deps: PullRouterDeps): Router {
  const router = Router();

  // Spectators all see the same view, and many may watch one match: they share one read of it per
  // `spectatorCacheMs`. A player (or the admin) reads its own writes, from Redis every time.
  const spectated =
    deps.spectatorCacheMs > 0
      ? new AnswerCache({
          ttlMs: deps.spectatorCacheMs,
          maxEntries: CACHED_SPECTATOR_STATES,
          shareLoads: true,
        })
      : null;
  router.get('/v1/matches/:matchId/state', async (req, res) => {
    const spectator = spectated !== null && principalOf(res) === null;
    // A state read by a spectator a moment ago, asked again without a query: its id was checked then.
    const kept = spectator && !hasQuery(req) ? spectated.kept(req.params.matchId) : undefined;
    if (kept !== undefined) {
      sendJson(res, await kept, deps.validated);
      return;
    }
    const { matchId } = parse(matchIdParams, req.params, 'params');
    const { waitMs } = parse(matchStateQuery, req.query, 'query');
    if (spectator) {
      const answer = await spectated.get(matchId, async () => ({
        value: await deps.service.state(null, matchId),
        keep: true,
      }));
      sendJson(res, answer, deps.validated);
      return;
    }
    const stop = stopSignal(res, closingOf(req.app));
    res.json(await deps.service.awaitTurn(principalOf(res), matchId, waitMs, stop));
  });

  router.post('/v1/matches/:matchId/actions', async (req, res) => {
    // Not the arena's closing: the answer waits only for the worker to record the move (milliseconds,
    // a few seconds at most), and a drain lets it send that rather than a 503.
    const gone = stopSignal(res);
    const { matchId } = parse(matchIdParams, req.params, 'params');
    const body = parse(pullActionBody, req.body, 'body');
    const key = parse(idempotencyKeyHeader, req.get('idempotency-key'), 'headers');
    const { state, played } = await deps.service.act(principalOf(res), matchId, body, key, gone);
    if (played) markMovePlayed(res);
    res.json(state);
  });

  router.get('/v1/bots/me/matches', async (req, res) => {
    const botId = botIdOf(res);
    const query = parse(myMatchesQuery, req.query, 'query');
    const page = await deps.stores.matches.listMatches({
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

  // Express would answer HEAD with the GET handler below: a stream that holds the connection and a
  // lease, with no end to its body. HEAD gets the headers GET would, checked the same way, and no
  // stream (RFC 9110 §9.3.2: a general-purpose server answers HEAD where it answers GET).
  router.head('/v1/bots/me/events', (req, res) => {
    botIdOf(res);
    parse(lastEventIdHeader, req.get('last-event-id'), 'headers');
    res.writeHead(200, STREAM_HEADERS).end();
  });

  router.get('/v1/bots/me/events', async (req, res) => {
    const botId = botIdOf(res);
    const lastEventId = parse(lastEventIdHeader, req.get('last-event-id'), 'headers');
    const closing = closingOf(req.app);
    // Asked for while the arena closes, the stream says so at once and takes no lease. Not a 503:
    // a browser's EventSource gives up for good on an error status, but reconnects after an end.
    const held = closing.started ? null : await holdStream(deps, botId, lastEventId);
    openStream(res);
    if (held) {
      const stop = stopSignal(res, closing);
      const events = botEvents(deps.service, deps, botId, held.start, stop, deps.keepAliveMs, held.lease);
      for await (const item of events) writeItem(res, item);
    }
    if (closing.started) writeArenaClosing(res);
    res.end();
  });

  return router;
}

/**
 * Takes one of the bot's stream leases and fixes where its stream starts, before the client sees
 * the stream open, so no event falls in between.
 */
async function holdStream(deps: PullRouterDeps, botId: string, lastEventId: string | undefined) {
  // Each turn of the stream's loop waits at most keepAliveMs, then renews the lease.
  const lease = await deps.service.holdStream(botId, deps.keepAliveMs * 2 + LEASE_MARGIN_MS);
  try {
    // A resume past what the stream still holds starts as a new connection does, with the turns
    // waiting for the bot, after what it still holds: a yourTurn trimmed away would be a lost turn.
    const start =
      lastEventId === undefined
        ? { after: await deps.pull.lastEventId(botId), snapshot: true }
        : { after: lastEventId, snapshot: await deps.pull.trimmedPast(botId, lastEventId) };
    // Online before the client sees the stream open: a bot that opened its stream is matchmade.
    await deps.pull.markOnline(botId, presenceSeconds(deps.keepAliveMs));
    return { lease, start };
  } catch (error) {
    await lease.release();
    throw error;
  }
}
