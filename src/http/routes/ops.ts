import express, { type Express, type RequestHandler, Router } from 'express';
import type { Registry } from 'prom-client';
import swaggerUi from 'swagger-ui-express';
import { requireAdmin } from '../../arena/principal.ts';
import { UnavailableError } from '../../model/errors.ts';
import { credentialsError, principalOf } from '../auth.ts';
import type { OpenApiSpec } from '../spec.ts';

export interface OpsDeps {
  readonly spec: OpenApiSpec;
  readonly registry: Registry;
  /** Resolves when the store answers; rejects when it does not. */
  readonly pingStore: () => Promise<void>;
  readonly isShuttingDown: () => boolean;
  /** More metrics in the Prometheus text format (the queue's). */
  readonly moreMetrics: () => Promise<string>;
  /** Whether /metrics is served here (with the admin token); false when it has a port of its own. */
  readonly metricsHere: boolean;
}

type MetricsDeps = Pick<OpsDeps, 'registry' | 'moreMetrics'>;

/** The Prometheus text of the registry and the queue, for GET /metrics here or on METRICS_PORT. */
function metricsHandler(deps: MetricsDeps): RequestHandler {
  return async (_req, res) => {
    const more = await deps.moreMetrics().catch(() => '');
    res.type(deps.registry.contentType).send(`${await deps.registry.metrics()}\n${more}`);
  };
}

/** An app serving only GET /metrics, without a token: for METRICS_PORT, which only Prometheus reaches. */
export function metricsApp(deps: MetricsDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsHandler(deps));
  return app;
}

/** Lets GET and HEAD through; any other method leaves the router (to the 405 of unknownRoute). */
const readOnly: RequestHandler = (req, _res, next) =>
  next(req.method === 'GET' || req.method === 'HEAD' ? undefined : 'router');

/** Health, readiness, metrics, the contract and its rendered reference. */
export function opsRouter(deps: OpsDeps): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    if (deps.isShuttingDown())
      throw new UnavailableError('service/shutting-down', 'The service is shutting down.');
    try {
      await deps.pingStore();
    } catch (error) {
      throw new UnavailableError('service/store-unavailable', 'Redis does not answer.', { cause: error });
    }
    res.json({ status: 'ok' });
  });

  if (deps.metricsHere) {
    // What the arena runs and how busy it is is the operator's business: Prometheus scrapes with
    // the admin token as its bearer token.
    const metrics = metricsHandler(deps);
    router.get('/metrics', (req, res, next) => {
      // Health and the reference ignore tokens; the metrics refuse a bad one as the API does.
      const refused = credentialsError(res);
      if (refused) throw refused;
      requireAdmin(principalOf(res));
      return metrics(req, res, next);
    });
  }

  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').set('Cache-Control', 'public, max-age=300').send(deps.spec.text);
  });

  // The same document for browsers, which have no YAML parser: the /protocol page renders from it.
  const json = JSON.stringify(deps.spec.document);
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').set('Cache-Control', 'public, max-age=300').send(json);
  });

  router.use(
    '/docs',
    // swagger-ui answers any method; the reference is GET only (others get 405 from unknownRoute).
    readOnly,
    swaggerUi.serveFiles(undefined, { swaggerUrl: '/openapi.yaml' }),
    swaggerUi.setup(undefined, {
      customSiteTitle: 'Reversi Arena API',
      swaggerOptions: { url: '/openapi.yaml' },
    }),
  );

  return router;
}
