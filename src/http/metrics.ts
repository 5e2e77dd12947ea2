import type { Request, Response } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { BoundedMap } from '../support/bounded-map.ts';

/** Records one answered request: its route, method and status, and how long it took. */
export type RequestObserver = (req: Request, res: Response, seconds: number) => void;

/**
 * HTTP latency by route template (`/v1/bots/:botId`, never the concrete path, so the label set
 * stays small), method and status. Called by the request log's listener (see `requestLog`) rather
 * than by a listener and a timer of its own: every open stream would hold both.
 */
export function httpMetrics(registry: Registry): RequestObserver {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route template',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30],
    registers: [registry],
  });
  // Each label set's series, found by one string: prom-client hashes the labels object (sorting
  // its keys) on every observation.
  const series = new BoundedMap<string, Histogram.Internal<'method' | 'route' | 'status'>>(1000);
  return (req, res, seconds) => {
    const route = req.route
      ? `${req.baseUrl}${req.route.path === '/' ? '' : req.route.path}` || '/'
      : 'unmatched';
    const labels = `${req.method} ${res.statusCode} ${route}`;
    let found = series.get(labels);
    if (found === undefined) {
      found = duration.labels({ method: req.method, route, status: String(res.statusCode) });
      series.set(labels, found);
    }
    found.observe(seconds);
  };
}
