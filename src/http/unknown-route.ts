import type { RequestHandler } from 'express';
import { MethodNotAllowedError, NotFoundError } from '../model/errors.ts';
import type { OpenApiSpec } from './spec.ts';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface KnownPath {
  readonly pattern: RegExp;
  readonly allow: readonly string[];
}

/** `/v1/bots/{botId}` → a pattern matching one path segment per parameter. */
function pathPattern(template: string): RegExp {
  const escaped = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}$`);
}

function allowed(methods: readonly string[]): string[] {
  const upper = methods.map((method) => method.toUpperCase());
  // Express answers HEAD with the GET handler, and every path answers OPTIONS by itself.
  return upper.includes('GET') ? [...upper, 'HEAD'] : upper;
}

/**
 * The last handler: a request no route answered. A path the API has, asked with a method it does
 * not have, is `405` with `Allow` (RFC 9110 §15.5.6); anything else is `404`. The paths and their
 * methods come from openapi.yaml, plus the web pages (`webPages`, GET only), so this cannot drift
 * from the routes the contract documents.
 */
export function unknownRoute(spec: OpenApiSpec, webPages: readonly string[]): RequestHandler {
  const known: KnownPath[] = [
    ...Object.entries(spec.document.paths).map(([template, operations]) => ({
      pattern: pathPattern(template),
      allow: allowed(METHODS.filter((method) => method in operations)),
    })),
    ...webPages.map((template) => ({ pattern: pathPattern(template), allow: allowed(['get']) })),
  ];
  return (req, _res, next) => {
    const path = known.find((candidate) => candidate.pattern.test(req.path));
    if (path && !path.allow.includes(req.method)) {
      return next(
        new MethodNotAllowedError(
          'request/method-not-allowed',
          `${req.path} does not answer ${req.method}; it answers ${path.allow.join(', ')}.`,
          path.allow,
        ),
      );
    }
    next(new NotFoundError('request/route-not-found', `There is no ${req.method} ${req.path}.`));
  };
}
