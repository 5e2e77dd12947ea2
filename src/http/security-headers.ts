import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Of helmet's headers, those that mean something on a JSON answer or an event stream. The rest
 * (opener and embedder policies, XSS and DNS-prefetch switches, ...) govern HTML documents; on the
 * API they only cost: every one is set on every answer and held for every open stream.
 */
const API_HEADERS: readonly (readonly [string, string])[] = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
];

/** Security headers: helmet's full set on pages and documents, the lean set under `/v1/`. */
export function securityHeaders(): RequestHandler {
  // No upgrade-insecure-requests: the arena is often served over plain HTTP (locally, behind a TLS proxy).
  const documents = helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
  return (req, res, next) => {
    if (!req.path.startsWith('/v1/')) return documents(req, res, next);
    for (const [name, value] of API_HEADERS) res.setHeader(name, value);
    next();
  };
}
