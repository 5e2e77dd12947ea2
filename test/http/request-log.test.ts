import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKeys } from '../../src/redis/keys.ts';
import { loggerOptions } from '../../src/support/logger.ts';
import { bearer, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LogLines, startLoggedApi } from '../support/logged-api.ts';
import { serve } from '../support/serve.ts';

let h: Harness;
let api: Awaited<ReturnType<typeof startLoggedApi>>['api'];
let log: LogLines;
beforeAll(async () => {
  // Keep-alives (and so lease renewals) every 200 ms: the cut event stream below fails that soon.
  h = await createHarness({ SSE_KEEPALIVE_MS: '200' });
  ({ api, log } = await startLoggedApi(h.config));
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const linesAbout = (route: string) => log.entries().filter((entry) => entry.route === route);

describe('the request log', () => {
  it('writes one short JSON line per request: method, route, status, ms, principal', async () => {
    const bot = await registerBot({ ...h, app: api.app }, { name: 'logged-bot' });
    log.clear();
    await request(api.app).get(`/v1/bots/${bot.id}`).set(bearer(bot.token)).expect(200);
    const entries = linesAbout('/v1/bots/:botId');
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(Object.keys(entry).sort()).toEqual([
      'level',
      'method',
      'ms',
      'msg',
      'principal',
      'route',
      'status',
      'time',
    ]);
    expect(entry).toMatchObject({ method: 'GET', status: 200, principal: bot.id, level: 30 });
    expect(entry.msg).toBe(`GET /v1/bots/:botId 200 ${entry.ms}ms ${bot.id}`);
    const raw = log.lines.find((line) => line.includes('/v1/bots/:botId'))!;
    expect(raw.length).toBeLessThan(250);
    expect(raw).not.toContain(bot.token);
  });

  it('names refused and unknown requests too, without the token they sent', async () => {
    log.clear();
    await request(api.app).get('/v1/leaderboard').set(bearer('rvb_wrong-token-0123')).expect(401);
    await request(api.app)
      .get(`/no/such/${'x'.repeat(200)}`)
      .expect(404);
    expect(log.lines.join('\n')).not.toContain('rvb_wrong-token-0123');
    const refused = linesAbout('/v1/leaderboard');
    expect(refused).toMatchObject([{ status: 401, principal: 'anonymous' }]);
    const unknown = log.entries().find((entry) => entry.status === 404);
    expect(unknown!.route!.length).toBeLessThanOrEqual(81);
  });

  it('logs the path without its query string, where a client may put a token', async () => {
    log.clear();
    await request(api.app).get('/v1/leaderboard?token=rvb_in-the-query-0123').expect(400);
    await request(api.app).get('/no/such/page?access_token=rvb_in-the-query-4567').expect(404);
    expect(log.lines.join('\n')).not.toContain('rvb_in-the-query');
    expect(linesAbout('/v1/leaderboard')).toMatchObject([{ status: 400 }]);
  });

  it('is readable in a terminal: pino-pretty when stdout is a TTY, JSON otherwise', () => {
    expect(loggerOptions({ logLevel: 'info' }, true).transport).toMatchObject({ target: 'pino-pretty' });
    expect(loggerOptions({ logLevel: 'info' }, false).transport).toBeUndefined();
  });
});

describe('an event stream cut by an error', () => {
  it('is logged with its cause, though its status line was sent long before', async () => {
    const bot = await registerBot({ ...h, app: api.app }, { name: 'cut-stream' });
    const site = await serve({ ...h, app: api.app });
    try {
      const stream = await fetch(`${site.origin}/v1/bots/me/events`, { headers: bearer(bot.token) });
      expect(stream.status).toBe(200);
      log.clear();
      // The stream renews its lease every half keep-alive: a lease key of the wrong type breaks that.
      await h.redis.set(storeKeys(h.prefix).botStreams(bot.id), 'not a sorted set');
      await expect(stream.text()).rejects.toThrow();
      const cut = log.entries().find((entry) => entry.msg === 'unexpected error');
      expect(cut).toMatchObject({ level: 50, path: '/v1/bots/me/events' });
      expect(JSON.stringify(cut!.err)).toContain('WRONGTYPE');
    } finally {
      await site.close();
    }
  });
});
