import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.ts';
import { admin } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { specSubschema } from '../support/spec-schema.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const spec = loadSpec();
const EXAMPLE_PARAMS: Record<string, string> = {
  botId: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH',
  matchId: 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D',
};
const operations = Object.entries(spec.document.paths).flatMap(([path, item]) =>
  Object.keys(item)
    .filter((method) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
    .map((method) => ({ method, path })),
);

describe('openapi.yaml', () => {
  it('lists operations', () => {
    expect(operations.length).toBeGreaterThan(10);
  });

  describe.each(operations)('$method $path', ({ method, path }) => {
    it('has a route', async () => {
      const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => EXAMPLE_PARAMS[name] ?? 'x');
      const res = await request(h.app)
        [method as 'get'](url)
        .set(admin)
        .send(method === 'get' ? undefined : {});
      expect(res.body?.code).not.toBe('request/route-not-found');
      expect(res.status).not.toBe(405);
    });
  });

  it('is served at GET /openapi.yaml', async () => {
    const res = await request(h.app).get('/openapi.yaml');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(res.text).toBe(spec.text);
  });

  it('is rendered at GET /docs', async () => {
    const res = await request(h.app).get('/docs/').redirects(1);
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });
});

/**
 * Every example openapi.yaml gives, with the schema it illustrates: a schema's own `example` (a
 * component's, a property's, a parameter's), and a media type's `example` or `examples`.
 */
function examplesIn(
  node: unknown,
  path: string,
  found: { where: string; schema: unknown; example: unknown }[],
  // A map of names to schemas (`properties`, `schemas`, …): its keys are names, not keywords.
  names = false,
) {
  if (node === null || typeof node !== 'object') return found;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) examplesIn(item, `${path}/${i}`, found);
    return found;
  }
  const object = node as Record<string, unknown>;
  if (names) {
    for (const [key, value] of Object.entries(object)) examplesIn(value, `${path}/${key}`, found);
    return found;
  }
  const isMediaType = 'schema' in object && ('example' in object || 'examples' in object);
  if (isMediaType) {
    if ('example' in object) found.push({ where: path, schema: object.schema, example: object.example });
    for (const [name, entry] of Object.entries(
      (object.examples ?? {}) as Record<string, { value?: unknown }>,
    )) {
      if (entry.value !== undefined)
        found.push({ where: `${path}/examples/${name}`, schema: object.schema, example: entry.value });
    }
  } else if ('example' in object && !('in' in object)) {
    found.push({ where: path, schema: object, example: object.example });
  }
  for (const [key, value] of Object.entries(object)) {
    if (key === 'example' || key === 'examples') continue;
    examplesIn(value, `${path}/${key}`, found, NAME_MAPS.has(key));
  }
  return found;
}

const NAME_MAPS = new Set([
  'properties',
  'schemas',
  'paths',
  'responses',
  'parameters',
  'content',
  'headers',
]);

const specExamples = examplesIn(spec.document, '#', []);

describe("openapi.yaml's examples", () => {
  it('are there to check: every component schema with one, and more', () => {
    expect(specExamples.length).toBeGreaterThan(20);
  });

  it.each(specExamples)('$where: its example is valid', ({ where, schema, example }) => {
    expect(specSubschema(where, schema)(example)).toEqual([]);
  });
});

describe('a path the API does not have', () => {
  it('answers 404 request/route-not-found as a problem document', async () => {
    const res = await request(h.app).get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      code: 'request/route-not-found',
      status: 404,
      instance: '/v1/nothing-here',
    });
  });
});
