import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_PAGES } from '../../src/http/routes/web.ts';
import { loadSpec } from '../../src/http/spec.ts';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { scanKeys } from '../support/redis-keys.ts';

/**
 * Every operation in openapi.yaml, asked with generated bad input (fast-check, seeded): wrong
 * types, missing and unknown fields, huge and odd strings, bad percent-encoding, bad ids, bad
 * headers, bodies that do not decode, wrong methods. Each answer must be a 4xx problem document,
 * and nothing may be written. A 5xx anywhere fails.
 */

const SEED = 20261203;
const RUNS_PER_OPERATION = 30;

interface Operation {
  readonly method: string;
  readonly template: string;
  readonly operationId: string;
  readonly pathParams: readonly string[];
  readonly query: readonly string[];
  readonly headers: readonly string[];
  readonly hasBody: boolean;
  /** Needs a token (an optional one, `{}` in its security list, does not count). */
  readonly needsToken: boolean;
}

type Parameter = { $ref?: string; name?: string; in?: string };

function operations(): Operation[] {
  const spec = loadSpec().document as unknown as {
    paths: Record<string, Record<string, unknown> & { parameters?: Parameter[] }>;
    components: { parameters: Record<string, Parameter> };
  };
  const resolve = (parameter: Parameter) =>
    parameter.$ref ? spec.components.parameters[parameter.$ref.split('/').at(-1)!]! : parameter;
  const found: Operation[] = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    for (const method of ['get', 'post', 'patch', 'delete', 'put']) {
      const op = item[method] as
        | { operationId: string; parameters?: Parameter[]; requestBody?: unknown; security?: object[] }
        | undefined;
      if (!op) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
      const named = (where: string) => parameters.filter((p) => p.in === where).map((p) => p.name!);
      found.push({
        method,
        template,
        operationId: op.operationId,
        pathParams: named('path'),
        query: named('query'),
        headers: named('header'),
        hasBody: op.requestBody !== undefined,
        needsToken:
          op.security !== undefined && !op.security.some((entry) => Object.keys(entry).length === 0),
      });
    }
  }
  return found;
}

// --- generated bad values ----------------------------------------------------------------------

const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '💥',
    '../../etc/passwd',
    '%00',
    'null',
    '-1',
    '1e309',
    'x'.repeat(5000),
  ),
);
const badId = fc.oneof(
  // An empty segment is another path (`/v1/bots/` is the list), not a bad id.
  oddString.filter((value) => value !== '').map(encodeURIComponent),
  fc.constantFrom('%zz', '%E0%A4%A', '%', '%C0%AF', '%ff%fe', 'bot_%zz', 'match_%E0%A4%A'),
  // Well formed, but naming nothing.
  fc.constantFrom('bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH', 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D'),
);
const badQueryValue = fc.oneof(
  oddString,
  fc.constantFrom('0x10', '1e2', '+5', ' 5', '-1', '0', '999999999999', '1.5', 'true', 'NaN', '[]'),
);
/** A JSON value of any type but `type`'s (and never null, which some fields allow). */
const jsonValueNot = (type: string) =>
  fc
    .oneof(
      fc.integer(),
      fc.double(),
      fc.boolean(),
      oddString,
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
    )
    .filter((value) => {
      const actual = Array.isArray(value) ? 'array' : typeof value;
      return actual !== type && !(type === 'number' && typeof value === 'number');
    });

// --- valid inputs, which each bad request spoils in one place ----------------------------------

interface World {
  readonly pushBot: RegisteredBot;
  readonly pullBot: RegisteredBot;
  readonly matchId: string;
  readonly tournamentId: string;
}

/** A valid body per operation; `required` lists fields whose absence makes it invalid. */
function validBody(operationId: string, world: World): { body: Record<string, unknown>; required: string[] } {
  switch (operationId) {
    case 'createBot':
      return { body: { name: 'fuzzed-bot', url: 'http://127.0.0.1:9/' }, required: ['name'] };
    case 'updateBot':
      return { body: { description: 'changed' }, required: ['description'] };
    case 'createMatch':
      return { body: { black: world.pushBot.id, white: world.pullBot.id }, required: ['black', 'white'] };
    case 'postMatchAction':
      return { body: { action: 'e3', ply: 1 }, required: ['action'] };
    case 'createTournament':
      return {
        body: { name: 'fuzzed cup', format: 'round-robin', openings: 'balanced', bots: [world.pushBot.id] },
        required: ['name', 'format', 'openings'],
      };
    case 'createAccount':
      return { body: { name: 'fuzzed-account' }, required: ['name'] };
    case 'addPasskey':
      return {
        body: { ceremonyId: 'c'.repeat(24), response: { id: 'x' } },
        required: ['ceremonyId', 'response'],
      };
    case 'signInWithPasskey':
      return {
        body: { ceremonyId: 'c'.repeat(24), response: { id: 'x' } },
        required: ['ceremonyId', 'response'],
      };
    case 'declineChallenge':
      return { body: { reason: 'later' }, required: [] };
    case 'startSoloGame':
      return { body: { layout: 3, scoring: 'tokens' }, required: ['layout'] };
    case 'mcp':
      // A notification: no `id`, whose type could be spoiled into the other valid one.
      return {
        body: { jsonrpc: '2.0', method: 'notifications/initialized', params: {} },
        required: ['jsonrpc', 'method'],
      };
    default:
      throw new Error(`no valid body for ${operationId}: add one`);
  }
}

const BAD_URLS = [
  'notaurl',
  'http://',
  'http://[::1',
  'http://a b/',
  'http://[::1%25lo]:4401/',
  'ftp://example.com/',
  'http://user:pw@example.com/',
  `http://example.com/${'x'.repeat(3000)}`,
];
const BAD_NAMES = ['', 'ab', 'has space', 'x'.repeat(33), 'house-greedy', 'ünïcode'];

/** Strings a field of an operation's body refuses (where any string of the right type would not do). */
const BAD_STRINGS: Record<string, Record<string, readonly string[]>> = {
  createBot: { name: BAD_NAMES, url: BAD_URLS, description: ['x'.repeat(501)] },
  updateBot: { name: BAD_NAMES, url: BAD_URLS, description: ['x'.repeat(501)] },
  createMatch: { black: ['', 'bot_', 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D'], white: ['bot_lowercase'] },
  createAccount: { name: BAD_NAMES },
  addPasskey: { ceremonyId: ['x'.repeat(65)], name: ['x'.repeat(65)] },
  signInWithPasskey: { ceremonyId: ['x'.repeat(65)] },
  declineChallenge: { reason: ['nope', 'Generic', ''] },
  startSoloGame: { scoring: ['discs', 'Points', ''] },
  mcp: { jsonrpc: ['1.0', '2', ''], method: ['', 'x'.repeat(201)] },
  postMatchAction: { action: ['', 'z9', 'e33', 'E3', 'pass'], direction: ['up', 'N', ''] },
  createTournament: {
    name: ['', 'tab\there', 'x'.repeat(81)],
    format: ['knockout', ''],
    openings: ['random'],
  },
};

interface BadRequest {
  readonly kind: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
}

/** The bad requests that apply to one operation, each spoiling exactly one thing. */
function badRequests(op: Operation, world: World): fc.Arbitrary<BadRequest> {
  const ids: Record<string, string> = {
    botId: world.pushBot.id,
    matchId: world.matchId,
    tournamentId: world.tournamentId,
  };
  const pathWith = (values: Record<string, string>) =>
    op.template.replace(/\{(\w+)\}/g, (_all, name: string) => values[name] ?? ids[name]!);
  // The caller with the most rights over the valid inputs: requests then reach validation.
  const token =
    op.operationId === 'postMatchAction' || op.template.startsWith('/v1/bots/me')
      ? world.pullBot.token
      : op.operationId === 'postBotCheck'
        ? world.pushBot.token
        : null;
  const auth: Record<string, string> = token ? bearer(token) : op.needsToken ? admin : {};
  const json = { 'content-type': 'application/json' };
  const base = (kind: string, rest: Partial<BadRequest> = {}): BadRequest => ({
    kind,
    method: op.method,
    path: pathWith({}),
    headers: { ...auth, ...(op.hasBody ? json : {}) },
    ...(op.hasBody ? { body: JSON.stringify(validBody(op.operationId, world).body) } : {}),
    ...rest,
  });

  const choices: fc.Arbitrary<BadRequest>[] = [];
  if (op.pathParams.length > 0) {
    choices.push(
      fc
        .record({ param: fc.constantFrom(...op.pathParams), value: badId })
        .map(({ param, value }) => base('path', { path: pathWith({ [param]: value }) })),
    );
  }
  if (op.query.length > 0) {
    choices.push(
      fc
        .record({
          name: fc.oneof(
            fc.constantFrom(...op.query),
            fc.constantFrom('unknown', '__proto__', 'constructor'),
          ),
          value: badQueryValue,
          twice: fc.boolean(),
        })
        // A value that happens to be valid is spoiled by an unknown field beside it.
        .map(({ name, value, twice }) => {
          const q = new URLSearchParams([[name, value]]);
          if (twice) q.append(name, value);
          q.append('unknownField', '1');
          return base('query', { path: `${pathWith({})}?${q}` });
        }),
    );
  }
  if (op.hasBody) {
    const { body, required } = validBody(op.operationId, world);
    const fields = Object.keys(body);
    choices.push(
      fc
        .record({ field: fc.constantFrom(...fields), value: fc.constant(null) })
        .chain(({ field }) => jsonValueNot(typeof body[field]).map((value) => ({ ...body, [field]: value })))
        .map((spoiled) => base('body: wrong type', { body: JSON.stringify(spoiled) })),
      fc
        .constantFrom(
          ...Object.entries(BAD_STRINGS[op.operationId] ?? {}).flatMap(([field, values]) =>
            values.map((value) => ({ ...body, [field]: value })),
          ),
        )
        .map((spoiled) => base('body: bad value', { body: JSON.stringify(spoiled) })),
      fc
        .record({
          key: fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !(k in body)),
          value: fc.jsonValue(),
        })
        .map(({ key, value }) =>
          base('body: unknown field', { body: JSON.stringify({ ...body, [key]: value }) }),
        ),
      ...(required.length === 0
        ? []
        : [
            fc.constantFrom(...required).map((field) => {
              const { [field]: _dropped, ...rest } = body;
              return base('body: missing field', { body: JSON.stringify(rest) });
            }),
          ]),
      fc
        .oneof(
          fc.constantFrom('', '{', 'null', '[]', '"x"', '42', '{"a":1}{', '\u0000', '{"name":"\ud800"}'),
          fc.string({ maxLength: 50 }),
        )
        .map((text) => base('body: not an object', { body: text })),
      fc.constantFrom('gzip', 'deflate', 'br', 'x-unknown').map((encoding) =>
        base('body: bad encoding', {
          headers: { ...auth, ...json, 'content-encoding': encoding },
          body: Buffer.from('this is not compressed'),
        }),
      ),
      fc.constant(
        base('body: too large', {
          body: gzipSync(JSON.stringify({ ...body, description: 'x'.repeat(200_000) })),
          headers: { ...auth, ...json, 'content-encoding': 'gzip' },
        }),
      ),
      fc.constant(base('body: too large', { body: JSON.stringify({ ...body, pad: 'x'.repeat(40_000) }) })),
    );
  }
  if (op.needsToken || token) {
    choices.push(
      fc
        .oneof(
          fc.string({ maxLength: 80 }).map((t) => `Bearer ${t}`),
          fc.constantFrom(
            'Bearer',
            'Bearer ',
            'Basic dXNlcjpwYXNz',
            'bearer rvb_',
            `Bearer ${'a'.repeat(5000)}`,
          ),
        )
        .filter((value) => /^[\t\x20-\x7e]*$/.test(value))
        .map((value) => base('authorization', { headers: { ...base('x').headers, authorization: value } })),
    );
  }
  for (const header of op.headers) {
    const bad =
      header === 'Last-Event-ID'
        ? fc.constantFrom(
            '99999999999999999999-0',
            '0-99999999999999999999',
            'abc',
            '-1-0',
            '1-',
            '1'.repeat(70),
          )
        : fc.constantFrom('', 'x'.repeat(300));
    choices.push(
      bad.map((value) => base(`header ${header}`, { headers: { ...base('x').headers, [header]: value } })),
    );
  }
  const otherMethods = ['get', 'post', 'put', 'patch', 'delete'].filter(
    (method) => !operations().some((other) => other.template === op.template && other.method === method),
  );
  if (otherMethods.length > 0) {
    choices.push(fc.constantFrom(...otherMethods).map((method) => base('method', { method })));
  }
  return fc.oneof(...choices);
}

// --- the test ------------------------------------------------------------------------------------

let h: Harness;
let world: World;
beforeAll(async () => {
  h = await createHarness({
    RATE_LIMIT_PER_IP: '1000000',
    RATE_LIMIT_PER_TOKEN: '1000000',
    RATE_LIMIT_CHECKS_PER_MINUTE: '1000000',
  });
  const pushBot = await registerBot(h, { name: 'fuzz-push', url: 'http://127.0.0.1:9/' });
  const pullBot = await registerBot(h, { name: 'fuzz-pull' });
  const tournament = await request(h.app)
    .post('/v1/tournaments')
    .set(admin)
    .send({ name: 'fuzz cup', format: 'round-robin', openings: 'standard', bots: [pushBot.id, pullBot.id] });
  world = {
    pushBot,
    pullBot,
    matchId: await createMatch(h, pushBot.id, pullBot.id),
    tournamentId: tournament.body.id,
  };
});
afterAll(() => h?.close());

/** Every key under the prefix (the rate limiter's aside) and what it holds. */
async function snapshot(): Promise<string> {
  const keys = (await scanKeys(h.redis, `${h.prefix}:*`)).filter((key) => !key.includes(':rate:'));
  const values = await Promise.all(
    keys.map(async (key) => {
      const type = await h.redis.type(key);
      if (type === 'hash') return h.redis.hgetall(key);
      if (type === 'string') return h.redis.get(key);
      if (type === 'zset') return h.redis.zrange(key, 0, -1, 'WITHSCORES');
      if (type === 'set') return (await h.redis.smembers(key)).sort();
      if (type === 'list') return h.redis.lrange(key, 0, -1);
      if (type === 'stream') return h.redis.xlen(key);
      return type;
    }),
  );
  return JSON.stringify(keys.map((key, i) => [key, values[i]]));
}

async function send(bad: BadRequest) {
  let req = request(h.app)[bad.method as 'get'](bad.path);
  for (const [name, value] of Object.entries(bad.headers)) req = req.set(name, value);
  if (bad.body !== undefined) req = req.send(bad.body);
  return req;
}

describe('bad input, on every operation of openapi.yaml', () => {
  it('covers every operation the contract documents', () => {
    expect(operations().length).toBeGreaterThanOrEqual(20);
  });

  for (const op of operations()) {
    it(`${op.method.toUpperCase()} ${op.template} answers a 4xx problem and writes nothing`, async () => {
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(badRequests(op, world), async (bad) => {
          const res = await send(bad);
          const where = `${bad.kind}: ${bad.method.toUpperCase()} ${bad.path.slice(0, 120)}`;
          expect(res.status, where).toBeGreaterThanOrEqual(400);
          expect(res.status, `${where} → ${JSON.stringify(res.body)}`).toBeLessThan(500);
          expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
          // Another template may own the path with that method (`DELETE /v1/bots/me` is the bot `me`).
          if (res.status === 405) expect(res.headers.allow, where).toContain(op.method.toUpperCase());
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
      expect(await snapshot()).toBe(before);
    });
  }

  it('takes numbers in a query string only as plain decimal digits', async () => {
    for (const limit of ['0x10', '1e2', '+5', ' 5', '5.0', '0o7']) {
      const res = await request(h.app)
        .get('/v1/bots')
        .query(`limit=${encodeURIComponent(limit)}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.errors[0].path).toBe('query.limit');
    }
    expect((await request(h.app).get('/v1/bots?limit=16')).status).toBe(200);
  });

  it('answers 405 with Allow for a method a known path does not have, and 404 for an unknown path', async () => {
    const res = await request(h.app).post('/v1/leaderboard');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body.code).toBe('request/method-not-allowed');
    const page = await request(h.app).delete(`/bots/${world.pushBot.id}`);
    expect(page.status).toBe(405);
    expect((await request(h.app).get('/v1/nothing-here')).status).toBe(404);
  });

  it('answers a bad percent-encoding in a web page path with 400', async () => {
    for (const page of WEB_PAGES.filter((path) => path.includes('{'))) {
      for (const garbage of ['%zz', '%E0%A4%A']) {
        const res = await request(h.app).get(page.replace(/\{\w+\}/, garbage));
        expect(res.status, page).toBe(400);
        expect(res.body.code).toBe('request/invalid-path');
      }
    }
  });
});
