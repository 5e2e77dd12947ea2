import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  answer,
  type Handler,
  type LoopbackBot,
  playsFirstLegal,
  startLoopbackBot,
} from '../support/loopback-bot.ts';

let h: Harness;
const servers: LoopbackBot[] = [];
beforeAll(async () => {
  // A short rated time control, so that a slow bot times out quickly.
  h = await createHarness({
    RATED_TIME_LIMIT_MS: '150',
    RATED_OVERAGE_MS: '0',
    RATE_LIMIT_CHECKS_PER_MINUTE: '3',
  });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await h.close();
});

async function pushBot(name: string, handler: Handler): Promise<RegisteredBot & { server: LoopbackBot }> {
  const server = await startLoopbackBot(handler);
  servers.push(server);
  return { ...(await registerBot(h, { name, url: server.url })), server };
}

const check = (bot: RegisteredBot) => request(h.app).post('/v1/bots/me/check').set(bearer(bot.token));

describe('GET /v1/bots/me', () => {
  it("answers the calling bot's own profile, with its private fields", async () => {
    const bot = await pushBot('me-push', playsFirstLegal());
    const res = await request(h.app).get('/v1/bots/me').set(bearer(bot.token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bot.id, name: 'me-push', kind: 'push', url: bot.server.url });
    const pullBot = await registerBot(h, { name: 'me-pull' });
    const pulled = await request(h.app).get('/v1/bots/me').set(bearer(pullBot.token));
    expect(pulled.body).toMatchObject({ id: pullBot.id, kind: 'pull' });
  });

  it('needs a bot token: 401 without one or with a bad one, 403 for the admin', async () => {
    const anonymous = await request(h.app).get('/v1/bots/me');
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'auth/missing-token']);
    const bad = await request(h.app).get('/v1/bots/me').set(bearer('rvb_not-a-token'));
    expect([bad.status, bad.body.code]).toEqual([401, 'auth/invalid-token']);
    const operator = await request(h.app).get('/v1/bots/me').set(admin);
    expect([operator.status, operator.body.code]).toEqual([403, 'auth/bot-token-required']);
  });
});

describe('POST /v1/bots/me/check', () => {
  it('sends one signed sample state and reports a legal answer', async () => {
    const bot = await pushBot('check-good', playsFirstLegal());
    const res = await check(bot);
    expect(res.status).toBe(200);
    const report = res.body;
    expect(report).toMatchObject({ url: bot.server.url, status: 200, legal: true, fault: null });
    expect(report.action).toEqual({ action: report.state.legalMoves[0] });
    expect(report.timeoutMs).toBe(150);
    expect(report.state.ply).toBe(1);
    expect(report.state.rules.timeLimitMs).toBe(150);
    const seen = bot.server.requests.at(-1)!;
    expect(JSON.parse(seen.body)).toEqual(report.state);
    expect(() =>
      new Webhook(bot.webhookSecret!).verify(seen.body, seen.headers as Record<string, string>),
    ).not.toThrow();
    // Nothing is stored for the sample: its match id names no match.
    expect((await request(h.app).get(`/v1/matches/${report.state.matchId}`)).status).toBe(404);
  });

  it('reports an illegal move as the fault a match would record', async () => {
    const bot = await pushBot('check-illegal', (_seen, res) => answer(res, 200, { action: 'a1' }));
    const report = (await check(bot)).body;
    expect(report).toMatchObject({ status: 200, action: { action: 'a1' }, legal: false });
    expect(report.fault).toMatchObject({ reason: 'illegal-move', player: report.state.you });
    expect(report.fault.message).toMatch(/a1 is not legal/);
  });

  it('reports an answer that is not an action, with its first bytes (the bot is the owner)', async () => {
    const bot = await pushBot('check-garbage', (_seen, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('I resign');
    });
    const report = (await check(bot)).body;
    expect(report).toMatchObject({ status: 200, action: null, legal: null });
    expect(report.fault).toMatchObject({
      reason: 'invalid-response',
      cause: 'not-an-action',
      body: 'I resign',
    });
  });

  it('reports a slow bot as a timeout under the rated time control', async () => {
    const bot = await pushBot('check-slow', playsFirstLegal(600));
    const report = (await check(bot)).body;
    expect(report).toMatchObject({ status: null, action: null, legal: null });
    expect(report.fault).toMatchObject({ reason: 'timeout' });
    expect(report.latencyMs).toBeGreaterThanOrEqual(150);
  });

  it('is refused for a pull bot, which has no URL to call', async () => {
    const bot = await registerBot(h, { name: 'check-pull' });
    const res = await check(bot);
    expect([res.status, res.body.code]).toEqual([409, 'bots/not-push']);
  });

  it('is limited per bot: past the budget it answers 429 without calling the bot', async () => {
    const bot = await pushBot('check-often', playsFirstLegal());
    const other = await pushBot('check-other', playsFirstLegal());
    for (let i = 0; i < 3; i++) expect((await check(bot)).status).toBe(200);
    const refused = await check(bot);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(bot.server.requests).toHaveLength(3);
    expect((await check(other)).status).toBe(200);
  });
});

describe('POST /v1/bots/me/check under the production address policy', () => {
  it('does not call a bot whose host name resolves to a private address', async () => {
    const strict = await createHarness({ ARENA_ALLOW_PRIVATE_BOT_URLS: 'false' });
    const server = await startLoopbackBot(playsFirstLegal());
    servers.push(server);
    try {
      const bot = await registerBot(strict, { name: 'sneaky', url: `http://localhost:${server.port}/turn` });
      const res = await request(strict.app).post('/v1/bots/me/check').set(bearer(bot.token));
      expect(res.status).toBe(200);
      // Told as a name that does not resolve, naming no address: a bot's owner learns nothing
      // of the names only the arena's network knows.
      expect(res.body.fault).toMatchObject({
        reason: 'bot-error',
        cause: 'dns',
        message: "the bot's host name localhost does not resolve to a public address",
      });
      expect(server.requests).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});
