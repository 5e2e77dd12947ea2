import type { RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';

/**
 * HTTP latency by route template (`/v1/bots/:botId`, never the concrete path, so the label set
 * stays small), method and status.
 */
export function httpMetrics(registry: Registry): RequestHandler {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route template',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30],
    registers: [registry],
  });
  return (req, res, next) => {
    const stop = duration.startTimer();
    res.on('finish', () => {
      const route = req.route
        ? `${req.baseUrl}${req.route.path === '/' ? '' : req.route.path}` || '/'
        : 'unmatched';
      stop({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
