import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { BotClient } from '../../src/bot-client/index.ts';
import { answer, firstTurnState, type LoopbackBot, startLoopbackBot } from '../support/loopback-bot.ts';

/**
 * undici hands a connection back to its pool a moment after the response body ends; in a match the
 * opponent's turn runs in between. One event-loop turn stands for that (not a timed sleep).
 */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('BotClient connection pool', () => {
  let bot: LoopbackBot;
  let client: BotClient;
  afterEach(async () => {
    await client.close();
    await bot.close();
  });

  const call = () =>
    client.callBot({ url: bot.url, webhookSecret: null, state: firstTurnState(), timeoutMs: 2000 });

  describe('when a bot is called twice', () => {
    it('reuses one kept-alive connection', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }));
      client = new BotClient({ allowPrivateAddresses: true });
      expect(await call()).toMatchObject({ ok: true });
      await nextTurn();
      expect(await call()).toMatchObject({ ok: true });
      expect(bot.requests).toHaveLength(2);
      expect(bot.connections()).toBe(1);
    });
  });

  describe('when the bot closes each connection after answering', () => {
    it('opens a new one for the next call', async () => {
      bot = await startLoopbackBot((_, res) => {
        res.setHeader('connection', 'close');
        answer(res, 200, { action: 'e3' });
      });
      client = new BotClient({ allowPrivateAddresses: true });
      expect(await call()).toMatchObject({ ok: true });
      await nextTurn();
      expect(await call()).toMatchObject({ ok: true });
      expect(bot.connections()).toBe(2);
    });
  });

  describe('when the client is closed', () => {
    it('closes its kept-alive connection', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }));
      client = new BotClient({ allowPrivateAddresses: true });
      const accepted = bot.nextConnection();
      expect(await call()).toMatchObject({ ok: true });
      const socket = await accepted;
      expect(socket.destroyed).toBe(false);
      const closed = once(socket, 'close');
      await client.close();
      await closed;
    });
  });
});
