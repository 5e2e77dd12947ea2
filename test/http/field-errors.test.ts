import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let a: RegisteredBot;
let b: RegisteredBot;
beforeAll(async () => {
  h = await createHarness();
  a = await registerBot(h, { name: 'field-a' });
  b = await registerBot(h, { name: 'field-b' });
});
afterAll(async () => h.close());

/** The problem document's field list, each as `path: message`. */
const fields = (res: { body: { errors?: { path: string; message: string }[] } }) =>
  (res.body.errors ?? []).map((issue) => `${issue.path}: ${issue.message}`);

describe('a request with bad fields', () => {
  describe('POST /v1/bots with an empty name', () => {
    it('answers 400 request/invalid with one plain message for the name', async () => {
      const res = await request(h.app).post('/v1/bots').send({ name: '' });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({
        type: 'urn:reversi-arena:problem:request/invalid',
        title: 'Invalid request',
        status: 400,
        code: 'request/invalid',
        instance: '/v1/bots',
      });
      expect(fields(res)).toEqual(['body.name: must be at least 3 characters long']);
      expect(res.body.detail).toBe(
        'The request body is invalid: body.name: must be at least 3 characters long.',
      );
    });
  });

  describe('POST /v1/bots with several bad fields', () => {
    it('names each field once, the unknown ones each on its own', async () => {
      const res = await request(h.app)
        .post('/v1/bots')
        .send({ name: 'x'.repeat(40), description: 42, acceptsChallenges: 'yes', colour: 'red', size: 3 });
      expect(res.status).toBe(400);
      expect(fields(res).sort()).toEqual([
        'body.acceptsChallenges: must be true or false',
        'body.colour: is not a field this request takes',
        'body.description: must be a string',
        'body.name: must be at most 32 characters long',
        'body.size: is not a field this request takes',
      ]);
    });

    it('says a missing field is required', async () => {
      const res = await request(h.app).post('/v1/bots').send({ description: 'no name' });
      expect(fields(res)).toEqual(['body.name: is required']);
    });

    it("keeps a schema's own message for a field", async () => {
      const res = await request(h.app).post('/v1/bots').send({ name: 'two words' });
      expect(fields(res)).toEqual(['body.name: must be 3 to 32 of A-Z a-z 0-9 _ -']);
    });
  });

  describe('POST /v1/matches with bad rules', () => {
    it('names each nested field once, in plain words', async () => {
      const res = await request(h.app)
        .post('/v1/matches')
        .set(admin)
        .send({ black: a.id, white: b.id, rules: { timeLimitMs: 1.5, overageMs: -1, scoring: 'most' } });
      expect(res.status).toBe(400);
      expect(fields(res).sort()).toEqual([
        'body.rules.overageMs: must be at least 0',
        'body.rules.scoring: must be one of "discs", "empties-to-winner"',
        'body.rules.timeLimitMs: must be a whole number',
      ]);
    });
  });

  describe('a query with a bad parameter', () => {
    it('names it once', async () => {
      const res = await request(h.app).get('/v1/bots').query({ limit: '0', colour: 'red' });
      expect(res.status).toBe(400);
      expect(fields(res).sort()).toEqual([
        'query.colour: is not a parameter this takes',
        'query.limit: must be at least 1',
      ]);
    });
  });
});
