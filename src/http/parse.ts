import type { Request } from 'express';
import type { z } from 'zod';
import { InvalidRequestError, type ValidationIssue } from '../model/errors.ts';

type Part = 'body' | 'query' | 'params' | 'headers';

const NOUN: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * Zod's messages for its own checks, in plain words: "must be at least 3 characters long" rather
 * than "Too small: expected string to have >=3 characters". A message a schema names itself
 * (`.regex(re, 'must be a square a1..h8')`) wins over these; `undefined` keeps zod's own.
 */
const plainWords: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${NOUN[issue.expected] ?? `a ${issue.expected}`}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') {
        return min <= 1 ? 'must not be empty' : `must be at least ${count(min, 'character')} long`;
      }
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must hold at least ${count(min, 'item')}`;
      return issue.inclusive ? `must be at least ${min}` : `must be more than ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${count(max, 'character')} long`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must hold at most ${count(max, 'item')}`;
      return issue.inclusive ? `must be at most ${max}` : `must be less than ${max}`;
    }
    case 'invalid_format':
      if (issue.format === 'regex') return 'is not in the form this field takes';
      if (issue.format === 'url') return 'must be a URL';
      if (issue.format === 'datetime') return 'must be a date and time such as 2025-01-31T12:00:00Z';
      return `must be a valid ${issue.format}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_union':
      return 'is not one of the values this field takes';
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    default:
      return undefined;
  }
};

/** The path of an issue as the problem document names it: `body.rules.timeLimitMs`. */
const pathOf = (part: Part, path: readonly PropertyKey[]) => [part, ...path.map(String)].join('.');

/**
 * One issue per field, in plain words: the first problem zod found with each field (an empty name
 * is "must be at least 3 characters long", not that and its pattern too), and each unknown field
 * named on its own.
 */
function fieldIssues(part: Part, issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  const byPath = new Map<string, string>();
  const unknown = part === 'body' ? 'is not a field this request takes' : 'is not a parameter this takes';
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = pathOf(part, [...issue.path, key]);
        if (!byPath.has(path)) byPath.set(path, unknown);
      }
      continue;
    }
    const path = pathOf(part, issue.path);
    if (!byPath.has(path)) byPath.set(path, issue.message);
  }
  return [...byPath].map(([path, message]) => ({ path, message }));
}

/**
 * Parses one part of a request with its schema, or throws an `InvalidRequestError` listing each
 * bad field once, with its path (`body.rules.timeLimitMs`) and one message in plain words.
 * Handlers only ever see parsed values.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, part: Part): z.output<S> {
  const result = schema.safeParse(value ?? (part === 'body' || part === 'headers' ? undefined : {}), {
    error: plainWords,
  });
  if (result.success) return result.data;
  const issues = fieldIssues(part, result.error.issues);
  const code = part === 'body' && value === undefined ? 'request/missing-body' : 'request/invalid';
  const message =
    code === 'request/missing-body'
      ? 'This needs a JSON body (Content-Type: application/json).'
      : `The request ${part} is invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}.`;
  throw new InvalidRequestError(code, message, issues);
}

/**
 * Whether the request's URL has a query string. A hot read without one takes its schema's
 * defaults, parsed once, instead of parsing an empty query on every request.
 */
export function hasQuery(req: Request): boolean {
  return req.url.includes('?');
}
