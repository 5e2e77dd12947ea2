import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiProcess, startApiProcess } from '../support/api-process.ts';
import { ADMIN_TOKEN, createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { openSse } from '../support/sse.ts';
import { spawnWorker } from '../support/worker-process.ts';

/**
 * Two API processes and two worker processes on one store, as a deployment past one machine runs:
 * a pull bot listens on one API process, a worker in another process opens its turns, and its
 * actions, posted to the other API process, are taken. Nothing ties a bot to a process.
 */
let h: Harness;
let push: LoopbackBot;
beforeAll(async () => {
  h = await createHarness();
  push = await startLoopbackBot(playsFirstLegal());
});
afterAll(async () => {
  await push?.close();
  await h?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
async function call(
  api: ApiProcess,
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
) {
  const res = await fetch(`${api.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? bearer(init.token) : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { id: string } };
}

describe('two API processes and two worker processes', { timeout: 60_000 }, () => {
  it('play a pull bot listening on one API process and posting to the other, to the end', async () => {
    const env = {
      REDIS_URL: h.config.redis.url,
      REDIS_PREFIX: h.prefix,
      ADMIN_TOKEN,
      ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
      WORKERS_IN_PROCESS: 'false',
      HOUSE_BOTS: 'false',
      MATCHMAKING_ENABLED: 'false',
      EVENTS: 'off',
    };
    const [one, two] = await Promise.all([startApiProcess(env), startApiProcess(env)]);
    const workers = [spawnWorker(h), spawnWorker(h)];
    const pull = await call(one, '/v1/bots', { method: 'POST', body: { name: 'many-pull' } });
    const pushed = await call(two, '/v1/bots', {
      method: 'POST',
      body: { name: 'many-push', url: push.url },
    });
    const token = pull.body.token as string;
    const events = await openSse(`${one.url}/v1/bots/me/events`, bearer(token));
    try {
      const created = await call(two, '/v1/matches', {
        method: 'POST',
        token: ADMIN_TOKEN,
        body: { black: pull.body.id, white: pushed.body.id },
      });
      expect(created.status).toBe(202);
      const matchId = created.body.id;
      let played = 0;
      for (;;) {
        const event = await events.next();
        const data = JSON.parse(event.data) as { matchId: string; ply: number; legalMoves: string[] };
        if (data.matchId !== matchId) continue;
        if (event.event === 'matchFinished') break;
        if (event.event !== 'yourTurn') continue;
        // Each action goes to the API process the bot does not listen on.
        const action = { action: data.legalMoves[0], ply: data.ply };
        const res = await call(two, `/v1/matches/${matchId}/actions`, {
          method: 'POST',
          token,
          body: action,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        played++;
      }
      expect(played).toBeGreaterThan(5);
      const match = await call(one, `/v1/matches/${matchId}`);
      expect(match.body).toMatchObject({ status: 'finished', result: { reason: 'completed' } });
      expect(workers.every((worker) => worker.exitCode === null)).toBe(true);
    } finally {
      events.close();
    }
  });
});
