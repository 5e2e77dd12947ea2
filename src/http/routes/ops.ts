import express, { type Express, type RequestHandler, Router } from 'express';
import type { Registry } from 'prom-client';
import { requireAdmin } from '../../arena/principal.ts';
import { UnavailableError } from '../../model/errors.ts';
import { credentialsError, principalOf } from '../auth.ts';
import { precompressed } from '../precompressed.ts';
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

const SPEC_CACHE_CONTROL = 'public, max-age=300';

/** An app serving only GET /metrics, without a token: for METRICS_PORT, which only Prometheus reaches. */
export function metricsApp(deps: MetricsDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsHandler(deps));
  return app;
}

/** Health, readiness, metrics and the contract (its rendered reference is a page: see web.ts). */
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

  router.get(
    '/openapi.yaml',
    precompressed(Buffer.from(deps.spec.text), 'application/yaml; charset=utf-8', SPEC_CACHE_CONTROL),
  );
  // The same document for browsers, which have no YAML parser: /docs and /protocol draw it.
  router.get(
    '/openapi.json',
    precompressed(
      Buffer.from(JSON.stringify(deps.spec.document)),
      'application/json; charset=utf-8',
      SPEC_CACHE_CONTROL,
    ),
  );

  return router;
}
