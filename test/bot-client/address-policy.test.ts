import type { LookupAddress } from 'node:dns';
import { buildConnector } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AddressRefusedError,
  BotClient,
  botResolver,
  guardConnector,
  NoPublicAddressError,
  publicOnlyLookup,
} from '../../src/bot-client/index.ts';
import { answer, firstTurnState, type LoopbackBot, startLoopbackBot } from '../support/loopback-bot.ts';

describe('BotClient address policy', () => {
  let bot: LoopbackBot; // listens on both IPv4 and IPv6 loopback
  beforeAll(async () => {
    bot = await startLoopbackBot((_, res) => answer(res, 200, { action: 'e3' }), '::');
  });
  afterAll(async () => {
    await bot.close();
  });

  const loopbackUrls = () => [
    `http://127.0.0.1:${bot.port}/`,
    `http://127.1.2.3:${bot.port}/`,
    `http://[::1]:${bot.port}/`,
    `http://localhost:${bot.port}/`,
    `http://[::ffff:127.0.0.1]:${bot.port}/`,
    `http://[::ffff:7f00:1]:${bot.port}/`,
  ];

  describe('when private addresses are not allowed', () => {
    it('refuses every loopback form before connecting', async () => {
      const client = new BotClient({ allowPrivateAddresses: false });
      try {
        for (const url of loopbackUrls()) {
          const outcome = await client.callBot({
            url,
            webhookSecret: null,
            state: firstTurnState(),
            timeoutMs: 2000,
          });
          expect(outcome, url).toMatchObject({ ok: false, fault: { reason: 'bot-error' } });
          expect(outcome.ok ? '' : outcome.fault.message, url).toMatch(
            /not allowed|not resolve to a public address/,
          );
        }
      } finally {
        await client.close();
      }
      expect(bot.connections()).toBe(0);
      expect(bot.requests).toHaveLength(0);
    });
  });

  describe('when private addresses are allowed', () => {
    it('reaches the same bot at every one of those URLs', async () => {
      const client = new BotClient({ allowPrivateAddresses: true });
      try {
        for (const url of loopbackUrls()) {
          const outcome = await client.callBot({
            url,
            webhookSecret: null,
            state: firstTurnState(),
            timeoutMs: 2000,
          });
          expect(outcome, url).toMatchObject({ ok: true, action: { action: 'e3' } });
        }
      } finally {
        await client.close();
      }
    });
  });

  describe('the socket check', () => {
    it('refuses a connected socket whose peer is not public, even when DNS was not filtered', async () => {
      const requestsBefore = bot.requests.length;
      const accepted = bot.nextConnection();
      const connect = guardConnector(buildConnector({}), { allowPrivateAddresses: false });
      const error = await new Promise<Error | null>((resolve) => {
        connect({ hostname: 'localhost', protocol: 'http:', port: String(bot.port) }, (...args) => {
          args[1]?.destroy();
          resolve(args[0]);
        });
      });
      expect(error).toBeInstanceOf(AddressRefusedError);
      expect(error?.message).toMatch(/not allowed/);
      // The TCP connection was made (that is what is checked) but no request went over it.
      await accepted;
      expect(bot.requests).toHaveLength(requestsBefore);
    });
  });

  describe('publicOnlyLookup', () => {
    function lookup(host: string, all: boolean) {
      return new Promise<{ error: Error | null; address: string | LookupAddress[] }>((resolve) => {
        publicOnlyLookup(botResolver())(host, { all }, (error, address) => resolve({ error, address }));
      });
    }

    it('refuses a name that resolves only to loopback, or not at all, alike', async () => {
      const { error } = await lookup('localhost', true);
      expect(error).toBeInstanceOf(NoPublicAddressError);
    });

    it('passes public addresses through, in both answer shapes', async () => {
      expect(await lookup('93.184.216.34', true)).toEqual({
        error: null,
        address: [{ address: '93.184.216.34', family: 4 }],
      });
      expect(await lookup('93.184.216.34', false)).toEqual({ error: null, address: '93.184.216.34' });
    });
  });
});
