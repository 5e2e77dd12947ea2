import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { AccountService } from '../arena/accounts.ts';
import { BotChecker } from '../arena/bot-check.ts';
import { BotService } from '../arena/bots.ts';
import { ChallengeService } from '../arena/challenges.ts';
import { GuestService } from '../arena/guests.ts';
import { MatchService } from '../arena/matches.ts';
import { OidcSignIn } from '../arena/oidc-sign-in.ts';
import { PullService } from '../arena/pull.ts';
import { SignInService } from '../arena/sign-in.ts';
import { SoloService } from '../arena/solo.ts';
import { SpectatorService } from '../arena/spectate.ts';
import { RoundMaker } from '../arena/tournament-rounds.ts';
import { TournamentService } from '../arena/tournaments.ts';
import type { BotClient } from '../bot-client/index.ts';
import type { Config } from '../config.ts';
import type { MatchQueue } from '../queue/match-queue.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { PullStore } from '../store/pull-store.ts';
import type { SignInStore } from '../store/sign-in-store.ts';
import type { Stores } from '../store/store.ts';
import type { TournamentStore } from '../store/tournament-store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { identify, refuseBadCredentials } from './auth.ts';
import { jsonBodies } from './body-limit.ts';
import { httpMetrics } from './metrics.ts';
import { forPaths, forRoute, inOrder } from './middleware-chain.ts';
import { presenter } from './present.ts';
import { errorHandler } from './problem.ts';
import {
  accountLimiter,
  type ClientOrigin,
  challengeLimiter,
  checkLimiter,
  doorKey,
  doorRefusal,
  exportLimiter,
  guestLimiter,
  type RateLimitStores,
  rateLimiter,
  registrationLimiter,
} from './rate-limit.ts';
import { logRefusal, RefusedClients, refuseAtTheDoor } from './refusals.ts';
import { requestLog } from './request-log.ts';
import { accountsRouter } from './routes/accounts.ts';
import { botsRouter } from './routes/bots.ts';
import { exportRouter } from './routes/export.ts';
import { gamesRouter } from './routes/games.ts';
import { guestsRouter } from './routes/guests.ts';
import { leaderboardRouter } from './routes/leaderboard.ts';
import { matchesRouter } from './routes/matches.ts';
import { mcpRouter } from './routes/mcp.ts';
import { opsRouter } from './routes/ops.ts';
import { pullRouter } from './routes/pull.ts';
import { sessionRouter } from './routes/session.ts';
import { soloRouter } from './routes/solo.ts';
import { spectateRouter } from './routes/spectate.ts';
import { tournamentsRouter } from './routes/tournaments.ts';
import { WEB_PAGES, webRouter } from './routes/web.ts';
import { securityHeaders } from './security-headers.ts';
import { loadSpec } from './spec.ts';
import { unknownRoute } from './unknown-route.ts';
import { responseValidator } from './validate-responses.ts';

/** Every request body the API takes is small: a bot, a match, an action. */
const JSON_BODY_LIMIT_BYTES = 16 * 1024;

export interface AppDeps {
  readonly config: Config;
  readonly stores: Stores;
  readonly tournaments: TournamentStore;
  readonly queue: MatchQueue;
  /** Pull mode's turns and bots' event streams. */
  readonly pull: PullStore;
  /** Where the rate limiters keep their counts, shared by every API process. */
  readonly rateLimitStores: RateLimitStores;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly logger: Logger;
  readonly registry: Registry;
  /** Calls push bots for `POST /v1/bots/me/check`; its owner closes it. */
  readonly botClient: BotClient;
  readonly isShuttingDown?: () => boolean;
  /** Where a request came from, keyed by the deployment (see `clientOriginHasher`). */
  readonly clientOrigin: ClientOrigin;
  readonly accounts: AccountStore;
  readonly signIns: SignInStore;
}

/**
 * A router that answers nothing under `/v1/` (the pages, the operations endpoints), skipped there
 * at once: every API request would otherwise try each of its routes.
 */
function outsideApi(router: RequestHandler): RequestHandler {
  return (req, res, next) => (req.path.startsWith('/v1/') ? next() : router(req, res, next));
}

/** The paths of the pull router's routes (express matches them without case, a final `/` or not). */
const PULL_PATHS = /^\/v1\/(matches\/[^/]+\/(state|actions)|bots\/me\/(matches|events))\/?$/i;
/** The paths of the spectators' routes and the export's: a match's own read passes both by. */
const SPECTATE_PATHS = /^\/v1\/matches\/(live|[^/]+\/events)\/?$/i;
const EXPORT_PATHS = /^\/v1\/matches\/(export|[^/]+\/export)\/?$/i;

/**
 * The API's routers, each tried, in the order given, only for paths under one of its prefixes (the
 * paths of its routes), or that its pattern matches. Express tries every route of every router in
 * turn, so a read near the end of the list (the leaderboard) paid for a hundred path matches and a
 * dozen router passes before its own; a prefix test skips a router whole.
 */
function routersByPrefix(
  routers: readonly (readonly [readonly string[] | RegExp, RequestHandler])[],
): RequestHandler[] {
  return routers.map(([paths, router]) => forPaths(paths, router));
}

/**
 * Builds the arena's express app from its dependencies. It does not listen: src/main.ts does, and
 * tests drive the app directly with supertest.
 *
 * @example
 * const app = createApp({ config, store, tournaments, queue, pull, rateLimitStores, clock: systemClock, random: randomBytes, logger, registry, botClient });
 * app.listen(config.port);
 */
export function createApp(deps: AppDeps): Express {
  const { config, stores, logger } = deps;
  const spec = loadSpec();
  const present = presenter(config.rating, deps.clock);
  const bots = new BotService({
    stores,
    accounts: deps.accounts,
    maxBotsPerAccount: config.accounts.maxBots,
    clock: deps.clock,
    random: deps.random,
    startingRating: config.rating.start,
    allowPrivateBotUrls: config.allowPrivateBotUrls,
  });
  const accounts = new AccountService({
    accounts: deps.accounts,
    signIns: deps.signIns,
    stores,
    clock: deps.clock,
    random: deps.random,
  });
  const signIn = new SignInService({
    accounts: deps.accounts,
    signIns: deps.signIns,
    clock: deps.clock,
    random: deps.random,
    sessionTtlMs: config.accounts.sessionTtlMs,
  });
  const challenges = new ChallengeService({
    stores,
    queue: deps.queue,
    clock: deps.clock,
    client: deps.botClient,
    logger,
  });
  // What every maker of queued matches takes: the match service and the solo games.
  const queued = {
    stores,
    queue: deps.queue,
    clock: deps.clock,
    random: deps.random,
    limits: config.limits,
    onEnqueueFailure: (matchId: string, error: unknown) =>
      logger.warn({ err: error, matchId }, 'match stored but not queued yet'),
  };
  const matches = new MatchService({
    ...queued,
    askPushBot: (match, target) => challenges.askPushBot(match, target),
  });

  const tournaments = new TournamentService({
    stores,
    tournaments: deps.tournaments,
    rounds: new RoundMaker({
      queue: deps.queue,
      clock: deps.clock,
      random: deps.random,
      onEnqueueFailure: (matchId, error) =>
        logger.warn({ err: error, matchId }, 'tournament match stored but not queued yet'),
    }),
    clock: deps.clock,
    random: deps.random,
    limits: config.limits,
    sameOperatorGames: config.sameOperatorGames,
  });

  const solo = new SoloService(queued);

  const { pull } = deps;
  const pullService = new PullService({
    stores,
    pull,
    maxStreamsPerBot: config.limits.maxStreamsPerBot,
    clock: deps.clock,
  });
  const spectators = new SpectatorService({
    stores,
    events: pull.matchEvents,
    pull: pullService,
    clock: deps.clock,
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  // Clients over their rate limit are refused first, before anything costs (see refusals.ts).
  const refused = new RefusedClients(deps.clock);
  const oidc =
    config.oidc === undefined
      ? undefined
      : new OidcSignIn({
          settings: config.oidc,
          signIns: deps.signIns,
          signIn,
          accounts,
          random: deps.random,
        });
  const first = [
    refuseAtTheDoor(refused, doorKey, deps.registry, doorRefusal(config.rateLimit)),
    requestLog(logger, httpMetrics(deps.registry)),
    securityHeaders(),
    // The web front end's static files are not rate-limited; the API calls its pages make are.
    outsideApi(webRouter()),
  ];
  // The middleware runs as one chain of our own (see inOrder); when responses are validated, as two,
  // with the validator (express middleware, error handlers among them) between them.
  if (config.validateResponses) app.use(inOrder(first), responseValidator(spec));
  app.use(
    inOrder([
      ...(config.validateResponses ? [] : first),
      identify({ bots: stores.bots, accounts: deps.accounts }, config.adminToken, signIn),
      rateLimiter(deps.rateLimitStores, config.rateLimit, {
        refused,
        onFirstRefusal: (req, principal) => logRefusal(logger, req, principal),
      }),
      forRoute('POST', '/v1/bots', registrationLimiter(deps.rateLimitStores, config.rateLimit)),
      forRoute('POST', '/v1/guests', guestLimiter(deps.rateLimitStores, config.rateLimit)),
      forRoute('POST', '/v1/matches', challengeLimiter(deps.rateLimitStores, config.rateLimit)),
      jsonBodies(JSON_BODY_LIMIT_BYTES),
      outsideApi(
        opsRouter({
          spec,
          registry: deps.registry,
          pingStore: () => stores.health.ping(),
          isShuttingDown: deps.isShuttingDown ?? (() => false),
          moreMetrics: () => deps.queue.prometheusMetrics(),
          metricsHere: config.metricsPort === undefined,
        }),
      ),
      refuseBadCredentials,
      ...routersByPrefix([
        [['/v1/games/'], gamesRouter(spec, config.limits)],
        // First for its paths, which no other router's routes take: a turn's read (the state a pull
        // bot polls, a spectator's) passed three routers' routes before it, 3% of its CPU.
        [
          PULL_PATHS,
          pullRouter({
            service: pullService,
            stores,
            pull,
            present,
            keepAliveMs: config.sseKeepAliveMs,
            spectatorCacheMs: config.spectatorStateCacheMs,
            validated: config.validateResponses,
          }),
        ],
        // Before the matches router: its /v1/matches/:matchId would take /v1/matches/live.
        [
          SPECTATE_PATHS,
          spectateRouter({
            spectators,
            keepAliveMs: config.sseKeepAliveMs,
            maxStreamsPerAddress: config.maxSpectatorStreamsPerAddress,
          }),
        ],
        [
          ['/v1/bots'],
          botsRouter({
            bots,
            checker: new BotChecker({
              stores,
              client: deps.botClient,
              clock: deps.clock,
              random: deps.random,
              limits: config.limits,
            }),
            checkLimiter: checkLimiter(deps.rateLimitStores, config.rateLimit),
            present,
            validated: config.validateResponses,
            clientOrigin: deps.clientOrigin,
          }),
        ],
        [
          ['/v1/guests'],
          guestsRouter({
            guests: new GuestService({
              stores,
              clock: deps.clock,
              random: deps.random,
              startingRating: config.rating.start,
            }),
            present,
          }),
        ],
        // Before the matches router: its /v1/matches/:matchId would take /v1/matches/export.
        [
          EXPORT_PATHS,
          exportRouter({
            matches,
            bots: stores.bots,
            present,
            limiter: exportLimiter(deps.rateLimitStores, config.rateLimit),
          }),
        ],
        [
          ['/v1/matches'],
          matchesRouter(matches, challenges, present, {
            validated: config.validateResponses,
            clientOrigin: deps.clientOrigin,
          }),
        ],
        [
          ['/v1/accounts'],
          accountsRouter({
            accounts,
            signIn,
            present,
            accountLimiter: accountLimiter(deps.rateLimitStores, config.rateLimit),
            publicUrl: config.publicUrl,
          }),
        ],
        [
          ['/v1/session', '/auth/'],
          sessionRouter({ signIn, oidc, accounts, present, publicUrl: config.publicUrl }),
        ],
        [
          ['/v1/leaderboard'],
          leaderboardRouter(stores, present, {
            cacheMs: config.leaderboardCacheMs,
            minGames: config.leaderboardMinGames,
            validated: config.validateResponses,
          }),
        ],
        [['/v1/tournaments'], tournamentsRouter(tournaments)],
        [
          ['/v1/solo'],
          soloRouter(solo, present, {
            limits: config.limits,
            cacheMs: config.leaderboardCacheMs,
            validated: config.validateResponses,
          }),
        ],
        [
          ['/mcp'],
          mcpRouter({
            pull: pullService,
            matches,
            stores,
            present,
            minGames: config.leaderboardMinGames,
            clientOrigin: deps.clientOrigin,
          }),
        ],
      ]),
    ]),
  );
  app.use(unknownRoute(spec, WEB_PAGES));
  app.use(
    errorHandler({
      storeAvailable: (error) => stores.health.health() === 'up' && !stores.health.isOutage(error),
      // The path only: a query string may carry a token.
      onUnexpected: (error, req) => logger.error({ err: error, path: req.path }, 'unexpected error'),
    }),
  );
  return app;
}
