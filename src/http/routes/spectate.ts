import { type Request, Router } from 'express';
import type { SpectatorService } from '../../arena/spectate.ts';
import type { components } from '../../contract/index.ts';
import { RateLimitedError } from '../../model/errors.ts';
import { parse } from '../parse.ts';
import { lastEventIdHeader, listLiveMatchesQuery, matchIdParams } from '../schemas.ts';
import { closingOf } from '../shutdown.ts';
import { openStream, STREAM_HEADERS, stopSignal, writeArenaClosing, writeItem } from '../sse.ts';

export interface SpectateRouterDeps {
  readonly spectators: SpectatorService;
  /** Silence after which a stream sends a keep-alive comment. */
  readonly keepAliveMs: number;
  /** Spectator streams one client address may hold at once in this process. */
  readonly maxStreamsPerAddress: number;
}

/** How long the list of running matches is shared by every caller. */
const LIVE_LIST_MS = 1000;
/** What a client at its cap of spectator streams is told to wait before trying again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Counts the spectator streams each client address holds in this process. In memory, not in Redis:
 * a stream is cheap to hold (a promise woken through the shared subscriber), and the cap only keeps one
 * client from holding thousands; a client spread over N API processes may hold N times the cap.
 */
class StreamsPerAddress {
  readonly #open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes one of `address`'s streams: its release, or null when the address holds its most. */
  take(address: string): (() => void) | null {
    const held = this.#open.get(address) ?? 0;
    if (held >= this.max) return null;
    this.#open.set(address, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(address) ?? 1) - 1;
      if (left === 0) this.#open.delete(address);
      else this.#open.set(address, left);
    };
  }
}

/**
 * Spectators: a match's live event stream (`GET /v1/matches/:matchId/events`) and the matches being
 * played (`GET /v1/matches/live`). Mount it before the matches router, whose `/v1/matches/:matchId`
 * would take `live` for a match id.
 */
export function spectateRouter(deps: SpectateRouterDeps): Router {
  const router = Router();
  const streams = new StreamsPerAddress(deps.maxStreamsPerAddress);

  // One read of the list a second, whatever the number of viewers; `serverTime` is each answer's own.
  const lists = new Map<number, { readonly until: number; readonly items: Promise<LiveMatch[]> }>();
  router.get('/v1/matches/live', async (req, res) => {
    const { limit } = parse(listLiveMatchesQuery, req.query, 'query');
    let cached = lists.get(limit);
    if (cached === undefined || cached.until <= performance.now()) {
      cached = { until: performance.now() + LIVE_LIST_MS, items: deps.spectators.running(limit) };
      lists.set(limit, cached);
      const mine = cached;
      mine.items.catch(() => {
        if (lists.get(limit) === mine) lists.delete(limit);
      });
    }
    const items = await cached.items;
    const body: components['schemas']['LiveMatchList'] = { serverTime: deps.spectators.now(), items };
    res.json(body);
  });

  // Express would answer HEAD with the GET handler: a stream with no end. HEAD gets its headers.
  router.head('/v1/matches/:matchId/events', async (req, res) => {
    const { matchId } = parse(matchIdParams, req.params, 'params');
    parse(lastEventIdHeader, req.get('last-event-id'), 'headers');
    await deps.spectators.ensureExists(matchId);
    res.writeHead(200, STREAM_HEADERS).end();
  });

  router.get('/v1/matches/:matchId/events', async (req, res) => {
    const { matchId } = parse(matchIdParams, req.params, 'params');
    const lastEventId = parse(lastEventIdHeader, req.get('last-event-id'), 'headers');
    const release = streams.take(addressOf(req));
    if (release === null) {
      throw new RateLimitedError(
        `One address may follow at most ${deps.maxStreamsPerAddress} matches at once; close a stream first.`,
        RETRY_AFTER_SECONDS,
        'streams/too-many',
      );
    }
    try {
      // Fixed before the stream opens: an unknown match is a 404, and no event falls in between.
      const start = await deps.spectators.start(matchId, lastEventId);
      const closing = closingOf(req.app);
      openStream(res);
      if (!closing.started) {
        const stop = stopSignal(res, closing);
        for await (const item of deps.spectators.follow(start, stop, deps.keepAliveMs)) writeItem(res, item);
      }
      if (closing.started) writeArenaClosing(res);
      res.end();
    } finally {
      release();
    }
  });

  return router;
}

type LiveMatch = components['schemas']['LiveMatch'];

/** The client's address as `trust proxy` resolves it. */
function addressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
