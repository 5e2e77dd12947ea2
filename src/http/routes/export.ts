import { type RequestHandler, type Response, Router } from 'express';
import { z } from 'zod';
import type { MatchService } from '../../arena/matches.ts';
import type { operations } from '../../contract/index.ts';
import { type Exact, tied } from '../../contract/tied.ts';
import { ConflictError, NotFoundError } from '../../model/errors.ts';
import type { MatchRecord, MatchStatus, Page } from '../../model/records.ts';
import { formatGgf, ggfUnsupported } from '../../protocol/ggf.ts';
import type { BotStore } from '../../store/bot-store.ts';
import type { MatchQuery } from '../../store/match-store.ts';
import { ID_PATTERN } from '../../support/ids.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import { matchIdParams } from '../schemas.ts';

type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
type Flat<T> = { [K in keyof T]: T[K] };

/** Matches asked of the store at once while a page's ids are gathered. */
const STORE_PAGE = 100;
/** Matches (with their moves) read and written at once: what one export holds in memory. */
const WRITE_BATCH = 10;

/** A whole number in a query string, in plain decimal digits (as src/http/schemas.ts reads them). */
const queryInteger = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);

export const exportMatchQuery = z.strictObject({
  format: z.enum(['json', 'ggf']).default('json'),
});
tied<Exact<Partial<z.output<typeof exportMatchQuery>>, Query<'exportMatch'>>>();

export const exportBotMatchesQuery = z.strictObject({
  bot: z.string().regex(ID_PATTERN.bot, 'must be a bot id (bot_…)'),
  format: z.enum(['ndjson']).default('ndjson'),
  status: z.enum(['finished', 'aborted']).default('finished'),
  since: z.iso.datetime({ offset: true }).max(64).optional(),
  limit: queryInteger(1, 1000, 100),
  cursor: z.string().max(200).optional(),
});
type BotMatchesQuery = z.output<typeof exportBotMatchesQuery>;
tied<Exact<Flat<Partial<BotMatchesQuery> & Pick<BotMatchesQuery, 'bot'>>, Query<'exportBotMatches'>>>();

export interface ExportRouterDeps {
  readonly matches: MatchService;
  readonly bots: Pick<BotStore, 'getBot'>;
  readonly present: Presenter;
  /** The export's own rate limit (see `exportLimiter`). */
  readonly limiter: RequestHandler;
}

/**
 * The ids of one page of a bot's ended matches, newest first, and the cursor after it (null on the
 * last page), read from `list` (the store's pages, `storePage` at a time). Only ids are kept: the
 * matches themselves are read again, a few at a time, as they are written, so a page of a thousand
 * holds a thousand ids, not a thousand move lists.
 *
 * @example
 * await pageIds((q) => stores.matches.listMatches(q), { bot, status: 'finished', since: null, limit: 7 });
 * // { ids: ['match_…', …], nextCursor: '…' }
 */
export async function pageIds(
  list: (query: MatchQuery) => Promise<Page<MatchRecord>>,
  query: { bot: string; status: MatchStatus; since: number | null; limit: number; cursor?: string },
  storePage = STORE_PAGE,
): Promise<{ ids: string[]; nextCursor: string | null }> {
  const ids: string[] = [];
  let cursor = query.cursor;
  while (ids.length < query.limit) {
    const page = await list({
      botId: query.bot,
      status: query.status,
      limit: Math.min(storePage, query.limit - ids.length),
      cursor,
    });
    for (const match of page.items) {
      // Newest first: the first match older than `since` ends the export.
      if (query.since !== null && match.createdAt < query.since) return { ids, nextCursor: null };
      ids.push(match.id);
    }
    if (page.nextCursor === null) return { ids, nextCursor: null };
    cursor = page.nextCursor;
  }
  return { ids, nextCursor: cursor ?? null };
}

/** Resolves once `res` can take more (`drain`) or is gone (`close`): a slow reader paces the export. */
function writable(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** The next page's URL: the same query with the new cursor. */
function nextPageUrl(query: BotMatchesQuery, cursor: string): string {
  const params = new URLSearchParams({ bot: query.bot, format: query.format, status: query.status });
  if (query.since !== undefined) params.set('since', query.since);
  params.set('limit', String(query.limit));
  params.set('cursor', cursor);
  return `/v1/matches/export?${params}`;
}

/**
 * Game records out: one match as GGF or as its JSON record, and a bot's ended matches as NDJSON.
 * Registered before the matches router, whose `/v1/matches/:matchId` would take `export` for an id.
 */
export function exportRouter(deps: ExportRouterDeps): Router {
  const { matches, present } = deps;
  const router = Router();

  router.get('/v1/matches/export', deps.limiter, async (req, res) => {
    // Watched from the start: a client gone while the page is gathered must not be waited on.
    let gone = false;
    res.on('close', () => {
      gone = true;
    });
    const query = parse(exportBotMatchesQuery, req.query, 'query');
    if ((await deps.bots.getBot(query.bot)) === null) {
      throw new NotFoundError('bots/not-found', `No bot has the id ${query.bot}.`);
    }
    const { ids, nextCursor } = await pageIds((page) => matches.list(page), {
      bot: query.bot,
      status: query.status,
      since: query.since === undefined ? null : Date.parse(query.since),
      limit: query.limit,
      cursor: query.cursor,
    });
    if (nextCursor !== null) res.set('Link', `<${nextPageUrl(query, nextCursor)}>; rel="next"`);
    res.status(200).type('application/x-ndjson');
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const viewer = principalOf(res);
    // Headers are out from the first write on: a failed read then reaches the error handler with
    // them sent, and the connection is cut, so a short page never ends like a whole one.
    for (let at = 0; at < ids.length && !gone; at += WRITE_BATCH) {
      const batch = await Promise.all(ids.slice(at, at + WRITE_BATCH).map((id) => matches.get(id)));
      for (const { match, moves } of batch) {
        if (gone) break;
        // A league game still sealed from this viewer is left out (see league-weeks.ts).
        if (matches.sealedFrom(viewer, match)) continue;
        const more = res.write(`${JSON.stringify(present.match(match, moves, viewer))}\n`);
        // A closed response emits no more events: wait only on one that is still open.
        if (!more && !gone) await writable(res);
      }
    }
    res.end();
  });

  router.get('/v1/matches/:matchId/export', async (req, res) => {
    const { matchId } = parse(matchIdParams, req.params, 'params');
    const { format } = parse(exportMatchQuery, req.query, 'query');
    const { match, moves } = await matches.read(principalOf(res), matchId);
    if (format === 'json') {
      res.json(present.match(match, moves, principalOf(res)));
      return;
    }
    const unsupported = ggfUnsupported(match);
    if (unsupported !== null) {
      throw new ConflictError('matches/ggf-unsupported', `${unsupported} Export it with format=json.`);
    }
    res.type('text/plain; charset=utf-8').send(`${formatGgf(match, moves)}\n`);
  });

  return router;
}
