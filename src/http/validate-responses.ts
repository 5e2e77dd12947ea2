import type { ErrorRequestHandler, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiSpec } from './spec.ts';

/**
 * Checks every response the app sends against openapi.yaml (on in tests and development). A
 * response that breaks the contract becomes a 500 whose detail says what broke, so a test that hits
 * it fails with the reason. Requests are not checked here: zod parses them at the edge.
 */
export function responseValidator(spec: OpenApiSpec): (RequestHandler | ErrorRequestHandler)[] {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(spec.document) as never,
    validateRequests: false,
    validateResponses: {
      onError: (error, body, req) => {
        throw Object.assign(
          new Error(`response breaks openapi.yaml on ${req.method} ${req.originalUrl}: ${error.message}`),
          {
            responseBody: body,
          },
        );
      },
    },
    validateSecurity: false,
    validateApiSpec: true,
    ignoreUndocumented: true,
  }) as (RequestHandler | ErrorRequestHandler)[];
}
