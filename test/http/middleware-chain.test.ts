import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { forPaths, forRoute, inOrder } from '../../src/http/middleware-chain.ts';

/** An app whose chain records the handlers it ran in the `ran` header, and answers errors with 500. */
function appOf(chain: RequestHandler) {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.ran = [];
    next();
  });
  app.use(chain);
  app.use((_req, res) => {
    res.json({ ran: res.locals.ran, end: 'after the chain' });
  });
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    res.status(500).json({ ran: res.locals.ran, error: (error as Error).message });
  };
  app.use(onError);
  return app;
}

const step =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    (res.locals.ran as string[]).push(name);
    next();
  };

describe('inOrder', () => {
  it('runs its handlers one after another, then goes on', async () => {
    const answer = await request(appOf(inOrder([step('a'), step('b'), step('c')]))).get('/x');
    expect(answer.body).toEqual({ ran: ['a', 'b', 'c'], end: 'after the chain' });
  });

  it('skips the rest with an error passed on, thrown, or rejected', async () => {
    const passed: RequestHandler = (_req, _res, next) => next(new Error('passed on'));
    const thrown: RequestHandler = () => {
      throw new Error('thrown');
    };
    const rejected: RequestHandler = async () => {
      throw new Error('rejected');
    };
    for (const [failing, message] of [
      [passed, 'passed on'],
      [thrown, 'thrown'],
      [rejected, 'rejected'],
    ] as const) {
      const answer = await request(appOf(inOrder([step('a'), failing, step('c')]))).get('/x');
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ ran: ['a'], error: message });
    }
  });

  it("leaves with next('router') and no error, and answers from a handler that answers", async () => {
    const leave: RequestHandler = (_req, _res, next) => next('router');
    const left = await request(appOf(inOrder([step('a'), leave, step('c')]))).get('/x');
    expect(left.body).toEqual({ ran: ['a'], end: 'after the chain' });
    const answering: RequestHandler = (_req, res) => {
      res.json({ ran: res.locals.ran, end: 'answered' });
    };
    const answered = await request(appOf(inOrder([step('a'), answering, step('c')]))).get('/x');
    expect(answered.body).toEqual({ ran: ['a'], end: 'answered' });
  });

  it('refuses error handlers, which express must run', () => {
    const onError: ErrorRequestHandler = (_error, _req, _res, next) => next();
    expect(() => inOrder([onError as unknown as RequestHandler])).toThrow(/error handlers/);
  });
});

describe('forPaths and forRoute', () => {
  it('run a handler for paths under a prefix or matching a pattern only', async () => {
    const app = appOf(inOrder([forPaths(['/v1/a/'], step('a')), forPaths(/^\/v1\/b$/, step('b'))]));
    expect((await request(app).get('/v1/a/1')).body.ran).toEqual(['a']);
    expect((await request(app).get('/v1/b')).body.ran).toEqual(['b']);
    expect((await request(app).get('/v1/b/1')).body.ran).toEqual([]);
  });

  it('run a route’s handlers as express matches the route: its method, any case, a final slash or not', async () => {
    const app = appOf(inOrder([forRoute('POST', '/v1/bots', [step('first'), step('second')])]));
    for (const path of ['/v1/bots', '/V1/Bots', '/v1/bots/']) {
      expect((await request(app).post(path)).body.ran).toEqual(['first', 'second']);
    }
    for (const path of ['/v1/bots/x', '/v1/botsx', '/v1/bots.']) {
      expect((await request(app).post(path)).body.ran).toEqual([]);
    }
    expect((await request(app).get('/v1/bots')).body.ran).toEqual([]);
  });
});
