import { Router } from 'express';
import type { Registry } from 'prom-client';
import swaggerUi from 'swagger-ui-express';
import { UnavailableError } from '../../errors.ts';
import type { OpenApiSpec } from '../spec.ts';

export interface OpsDeps {
  readonly spec: OpenApiSpec;
  readonly registry: Registry;
  /** Resolves when the store answers; rejects when it does not. */
  readonly pingStore: () => Promise<void>;
  readonly isShuttingDown: () => boolean;
  /** More metrics in the Prometheus text format (the queue's). */
  readonly moreMetrics: () => Promise<string>;
}

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

  router.get('/metrics', async (_req, res) => {
    const more = await deps.moreMetrics().catch(() => '');
    res.type(deps.registry.contentType).send(`${await deps.registry.metrics()}\n${more}`);
  });

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
    swaggerUi.serveFiles(undefined, { swaggerUrl: '/openapi.yaml' }),
    swaggerUi.setup(undefined, {
      customSiteTitle: 'Reversi Arena API',
      swaggerOptions: { url: '/openapi.yaml' },
    }),
  );

  return router;
}
