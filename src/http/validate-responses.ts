import type { ErrorRequestHandler, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiSpec } from './spec.ts';

type Handlers = (RequestHandler | ErrorRequestHandler)[];

/**
 * The validator of each spec, made once per process: it compiles the whole contract into ajv
 * validators, and a process that makes many apps (the tests make hundreds) spent 36% of its CPU on
 * that. Its handlers keep no state of one app's: `validateRequests` is off, so the path parameters
 * it would install on the first app to call it do not matter.
 */
const validators = new WeakMap<OpenApiSpec, Handlers>();

/**
 * Checks every response the app sends against openapi.yaml (on in tests and development). A
 * response that breaks the contract becomes a 500 whose detail says what broke, so a test that hits
 * it fails with the reason. Requests are not checked here: zod parses them at the edge.
 */
export function responseValidator(spec: OpenApiSpec): Handlers {
  let handlers = validators.get(spec);
  if (handlers === undefined) {
    handlers = validatorOf(spec);
    validators.set(spec, handlers);
  }
  return handlers;
}

function validatorOf(spec: OpenApiSpec): Handlers {
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
  }) as Handlers;
}
