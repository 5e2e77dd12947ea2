import type { z } from 'zod';
import { InvalidRequestError } from '../errors.ts';

/**
 * Parses one part of a request with its schema, or throws an `InvalidRequestError` listing every
 * problem with its path (`body.rules.timeLimitMs`). Handlers only ever see parsed values.
 */
export function parse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: 'body' | 'query' | 'params' | 'headers',
): z.output<S> {
  const result = schema.safeParse(value ?? (part === 'body' || part === 'headers' ? undefined : {}));
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message:
      issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : issue.message,
  }));
  const code = part === 'body' && value === undefined ? 'request/missing-body' : 'request/invalid';
  const message =
    code === 'request/missing-body'
      ? 'This needs a JSON body (Content-Type: application/json).'
      : `The request ${part} is invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}.`;
  throw new InvalidRequestError(code, message, issues);
}
