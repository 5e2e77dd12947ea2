import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.ts';
import { admin } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { specSchema } from '../support/spec-schema.ts';

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

const schemaExamples = Object.entries(
  (spec.document.components?.schemas ?? {}) as Record<string, { example?: unknown }>,
).flatMap(([name, schema]) => (schema.example === undefined ? [] : [{ name, example: schema.example }]));

describe("openapi.yaml's component schemas' examples", () => {
  it('are there to check', () => {
    expect(schemaExamples.length).toBeGreaterThan(5);
  });

  it.each(schemaExamples)('$name: its example is valid', ({ name, example }) => {
    expect(specSchema(name)(example)).toEqual([]);
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
