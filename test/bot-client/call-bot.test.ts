import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { BotClient } from '../../src/bot-client/index.ts';
import { answer, firstTurnState, type LoopbackBot, startLoopbackBot } from '../support/loopback-bot.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('BotClient.callBot', () => {
  let bot: LoopbackBot | undefined;
  let client: BotClient | undefined;
  afterEach(async () => {
    await client?.close();
    await bot?.close();
    bot = undefined;
    client = undefined;
  });

  describe('when the bot answers a good action', () => {
    it('returns the action and the latency', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }));
      client = new BotClient({ allowPrivateAddresses: true });
      const outcome = await client.callBot({
        url: bot.url,
        webhookSecret: SECRET,
        state: firstTurnState(),
        timeoutMs: 2000,
      });
      expect(outcome).toEqual({
        ok: true,
        action: { action: 'e3' },
        latencyMs: expect.any(Number),
        status: 200,
      });
    });

    it('posts the state as JSON with a signature the bot can verify', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }));
      client = new BotClient({ allowPrivateAddresses: true });
      const state = firstTurnState();
      await client.callBot({ url: bot.url, webhookSecret: SECRET, state, timeoutMs: 2000 });
      const [seen] = bot.requests;
      expect(seen?.method).toBe('POST');
      expect(seen?.url).toBe('/turn');
      expect(seen?.headers['content-type']).toBe('application/json');
      expect(seen?.headers['user-agent']).toBe('reversi-arena/1');
      expect(JSON.parse(seen?.body ?? '')).toEqual(state);
      const verified = new Webhook(SECRET).verify(seen?.body ?? '', seen?.headers as Record<string, string>);
      expect(verified).toEqual(state);
      expect(() =>
        new Webhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').verify(
          seen?.body ?? '',
          seen?.headers as Record<string, string>,
        ),
      ).toThrow();
    });

    it('builds webhook-id from the match, the ply and the injected randomness', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }));
      client = new BotClient({
        allowPrivateAddresses: true,
        random: (size) => new Uint8Array(size).fill(0xab),
      });
      const state = firstTurnState();
      await client.callBot({ url: bot.url, webhookSecret: SECRET, state, timeoutMs: 2000 });
      expect(bot.requests[0]?.headers['webhook-id']).toBe(`${state.matchId}-1-abababababab`);
    });

    it('stamps webhook-timestamp in seconds from the injected clock', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }));
      const nowMs = Date.now();
      client = new BotClient({ allowPrivateAddresses: true, clock: { now: () => nowMs } });
      await client.callBot({ url: bot.url, webhookSecret: SECRET, state: firstTurnState(), timeoutMs: 2000 });
      expect(bot.requests[0]?.headers['webhook-timestamp']).toBe(String(Math.floor(nowMs / 1000)));
    });

    it('sends no signature when the bot has no secret', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }));
      client = new BotClient({ allowPrivateAddresses: true });
      await client.callBot({ url: bot.url, webhookSecret: null, state: firstTurnState(), timeoutMs: 2000 });
      expect(bot.requests[0]?.headers['webhook-signature']).toBeUndefined();
      expect(bot.requests[0]?.headers['webhook-id']).toBeUndefined();
    });

    it('keeps a direction', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'c4', direction: 'e' }));
      client = new BotClient({ allowPrivateAddresses: true });
      const outcome = await client.callBot({
        url: bot.url,
        webhookSecret: null,
        state: firstTurnState(),
        timeoutMs: 2000,
      });
      expect(outcome).toMatchObject({ ok: true, action: { action: 'c4', direction: 'e' } });
    });

    it('measures latency with the injected clock', async () => {
      bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }));
      const ticks = [1000, 1042];
      client = new BotClient({ allowPrivateAddresses: true, now: () => ticks.shift() ?? 1042 });
      const outcome = await client.callBot({
        url: bot.url,
        webhookSecret: null,
        state: firstTurnState(),
        timeoutMs: 2000,
      });
      expect(outcome).toEqual({ ok: true, action: { action: 'e3' }, latencyMs: 42, status: 200 });
    });
  });

  describe('when the caller aborts', () => {
    it('rejects with the reason and is not a bot fault', async () => {
      bot = await startLoopbackBot(() => {}); // holds every request
      client = new BotClient({ allowPrivateAddresses: true });
      const caller = new AbortController();
      const call = client.callBot({
        url: bot.url,
        webhookSecret: null,
        state: firstTurnState(),
        timeoutMs: 10_000,
        signal: caller.signal,
      });
      await bot.nextRequest();
      caller.abort(new Error('worker shutting down'));
      await expect(call).rejects.toThrow('worker shutting down');
    });

    it('stops every call still in flight under the signal, and only those', async () => {
      // The first request is answered; the rest are held until they time out or the caller aborts.
      let seen = 0;
      bot = await startLoopbackBot((_, res) => {
        if (seen++ === 0) answer(res, 200, { action: 'e3' });
      });
      client = new BotClient({ allowPrivateAddresses: true });
      const caller = new AbortController();
      const request = {
        url: bot.url,
        webhookSecret: null,
        state: firstTurnState(),
        timeoutMs: 10_000,
        signal: caller.signal,
      };
      expect((await client.callBot(request)).ok).toBe(true);
      const first = client.callBot(request);
      const middle = client.callBot({ ...request, timeoutMs: 200 });
      const last = client.callBot(request);
      while (bot.requests.length < 4) await bot.nextRequest();
      expect(await middle).toMatchObject({ ok: false, fault: { reason: 'timeout' } });
      caller.abort(new Error('worker shutting down'));
      await expect(first).rejects.toThrow('worker shutting down');
      await expect(last).rejects.toThrow('worker shutting down');
    });
  });

  describe('when the client is closed', () => {
    it('refuses new calls', async () => {
      client = new BotClient({ allowPrivateAddresses: true });
      await client.close();
      await expect(
        client.callBot({
          url: 'http://127.0.0.1:9/',
          webhookSecret: null,
          state: firstTurnState(),
          timeoutMs: 100,
        }),
      ).rejects.toThrow('closed');
    });
  });
});
