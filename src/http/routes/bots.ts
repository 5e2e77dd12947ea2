import { type RequestHandler, Router } from 'express';
import type { BotChecker } from '../../arena/bot-check.ts';
import type { BotService } from '../../arena/bots.ts';
import { requireBot } from '../../arena/principal.ts';
import type { components } from '../../contract/index.ts';
import { AnswerCache, sendJson } from '../answer-cache.ts';
import { principalOf } from '../auth.ts';
import { parse } from '../parse.ts';
import type { Presenter } from '../present.ts';
import type { ClientOrigin } from '../rate-limit.ts';
import {
  botIdParams,
  createBotBody,
  listBotsQuery,
  noQuery,
  ratingsQuery,
  updateBotBody,
} from '../schemas.ts';

type CreatedBot = components['schemas']['CreatedBot'];
type BotSecrets = components['schemas']['BotSecrets'];

const secretsBody = (secrets: { token: string; webhookSecret: string | null }): BotSecrets =>
  secrets.webhookSecret === null
    ? { token: secrets.token }
    : { token: secrets.token, webhookSecret: secrets.webhookSecret };

export interface BotsRouterDeps {
  readonly bots: BotService;
  readonly checker: BotChecker;
  /** The budget of POST /v1/bots/me/check. */
  readonly checkLimiter: RequestHandler;
  readonly present: Presenter;
  /** Responses are validated against openapi.yaml (see `sendJson`). */
  readonly validated: boolean;
  /** What a new bot keeps of where it was registered from. */
  readonly clientOrigin: ClientOrigin;
}

/**
 * Rating histories served from memory, the most-read first kept: up to about 200 kB each (1,000
 * entries), so about 20 MB at most.
 */
const CACHED_RATING_HISTORIES = 100;

/** /v1/bots: register, read, change, retire bots and rotate their secrets; a bot's own tools. */
export function botsRouter({
  bots,
  checker,
  checkLimiter,
  present,
  validated,
  clientOrigin,
}: BotsRouterDeps): Router {
  const router = Router();
  const histories = new AnswerCache({
    ttlMs: Number.POSITIVE_INFINITY,
    maxEntries: CACHED_RATING_HISTORIES,
    shareLoads: true,
  });

  // Before /v1/bots/:botId, which would take `me` for a malformed id.
  router.get('/v1/bots/me', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const viewer = principalOf(res);
    res.json(present.bot(await bots.get(requireBot(viewer)), viewer));
  });

  router.post('/v1/bots/me/check', checkLimiter, async (req, res) => {
    parse(noQuery, req.query, 'query');
    res.json(await checker.check(requireBot(principalOf(res))));
  });

  router.get('/v1/bots', async (req, res) => {
    const query = parse(listBotsQuery, req.query, 'query');
    const page = await bots.list({
      namePrefix: query.q,
      includeRetired: query.includeRetired,
      limit: query.limit,
      cursor: query.cursor,
    });
    const viewer = principalOf(res);
    res.json({ items: page.items.map((bot) => present.bot(bot, viewer)), nextCursor: page.nextCursor });
  });

  router.post('/v1/bots', async (req, res) => {
    parse(noQuery, req.query, 'query');
    const body = parse(createBotBody, req.body, 'body');
    const { bot, secrets } = await bots.register({ ...body, origin: clientOrigin(req) }, principalOf(res));
    const created: CreatedBot = {
      ...present.bot(bot, { kind: 'bot', botId: bot.id }),
      ...secretsBody(secrets),
    };
    res.status(201).location(`/v1/bots/${bot.id}`).json(created);
  });

  router.get('/v1/bots/:botId', async (req, res) => {
    const { botId } = parse(botIdParams, req.params, 'params');
    res.json(present.bot(await bots.get(botId), principalOf(res)));
  });

  router.patch('/v1/bots/:botId', async (req, res) => {
    const { botId } = parse(botIdParams, req.params, 'params');
    const body = parse(updateBotBody, req.body, 'body');
    const { bot, webhookSecret } = await bots.update(principalOf(res), botId, body);
    const updated: components['schemas']['UpdatedBot'] = present.bot(bot, principalOf(res));
    res.json(webhookSecret === null ? updated : { ...updated, webhookSecret });
  });

  router.delete('/v1/bots/:botId', async (req, res) => {
    const { botId } = parse(botIdParams, req.params, 'params');
    await bots.retire(principalOf(res), botId);
    res.status(204).end();
  });

  router.delete('/v1/bots/:botId/pause', async (req, res) => {
    const { botId } = parse(botIdParams, req.params, 'params');
    parse(noQuery, req.query, 'query');
    const viewer = principalOf(res);
    res.json(present.bot(await bots.liftPause(viewer, botId), viewer));
  });

  router.get('/v1/bots/:botId/ratings', async (req, res) => {
    const { botId } = parse(botIdParams, req.params, 'params');
    const { limit } = parse(ratingsQuery, req.query, 'query');
    // Anonymous, and a long history reads a match per entry: kept until it changes. It changes only
    // by a rated result, which counts in the bot's ratedGames in the same write, so the bot read
    // first names the version (a history read after it is that one or newer), and its name the
    // rest of the answer.
    const bot = await bots.get(botId);
    const answer = await histories.get(`${bot.id} ${bot.ratedGames} ${limit} ${bot.name}`, async () => ({
      value: present.ratingHistory(bot, await bots.ratingHistory(botId, limit)),
      keep: true,
    }));
    sendJson(res, answer, validated);
  });

  router.post('/v1/bots/:botId/token', async (req, res) => {
    const { botId } = parse(botIdParams, req.params, 'params');
    res.json(secretsBody(await bots.rotateSecrets(principalOf(res), botId)));
  });

  return router;
}
