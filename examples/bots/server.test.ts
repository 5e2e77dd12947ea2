import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { BotClient } from '../../src/bot-client/index.ts';
import { firstTurnState } from '../../test/support/loopback-bot.ts';
import { BOT_KINDS, type RunningBot, startBot } from './server.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('startBot', () => {
  let bot: RunningBot | undefined;
  afterEach(async () => {
    await bot?.close();
    bot = undefined;
  });

  describe.each(BOT_KINDS)('a %s bot', (kind) => {
    it('answers a posted state with a legal action', async () => {
      bot = await startBot(kind, { port: 0, depth: 2 });
      const state = firstTurnState();
      const { status, json } = await post(bot.url, JSON.stringify(state));
      expect(status).toBe(200);
      expect(state.legalMoves).toContain(json.action);
      expect(Object.keys(json)).toEqual(['action']);
    });
  });

  describe('when started with a secret', () => {
    it('rejects an unsigned request with 401', async () => {
      bot = await startBot('greedy', { port: 0, secret: SECRET });
      const { status } = await post(bot.url, JSON.stringify(firstTurnState()));
      expect(status).toBe(401);
    });

    it('rejects a request signed with another secret with 401', async () => {
      bot = await startBot('greedy', { port: 0, secret: SECRET });
      const body = JSON.stringify(firstTurnState());
      const other = new Webhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      const now = new Date();
      const headers = {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': other.sign('msg_1', now, body),
      };
      expect((await post(bot.url, body, headers)).status).toBe(401);
    });

    it('answers the arena, whose calls are signed', async () => {
      bot = await startBot('greedy', { port: 0, secret: SECRET });
      const client = new BotClient({ allowPrivateAddresses: true });
      try {
        const outcome = await client.callBot({
          url: bot.url,
          webhookSecret: SECRET,
          state: firstTurnState(),
          timeoutMs: 5000,
        });
        expect(outcome).toMatchObject({ ok: true, action: { action: 'e3' } });
      } finally {
        await client.close();
      }
    });
  });

  describe('when the body is not a BotState', () => {
    it('answers 400', async () => {
      bot = await startBot('random', { port: 0 });
      expect((await post(bot.url, '{"board":[]}')).status).toBe(400);
      expect((await post(bot.url, 'not json')).status).toBe(400);
    });
  });

  describe('when the state leaves no move', () => {
    it('answers 400', async () => {
      bot = await startBot('greedy', { port: 0 });
      const state = {
        ...firstTurnState(),
        board: ['BBBBBBBB', ...Array<string>(7).fill('........')],
        legalMoves: [],
      };
      const { status, json } = await post(bot.url, JSON.stringify(state));
      expect(status).toBe(400);
      expect(json.error).toMatch(/no legal move/);
    });
  });
});
