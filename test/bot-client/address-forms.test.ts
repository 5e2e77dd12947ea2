import type { LookupAddress } from 'node:dns';
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { describe, expect, it } from 'vitest';
import { BotService } from '../../src/arena/bots.ts';
import {
  AddressRefusedError,
  BotClient,
  botResolver,
  guardConnector,
  NoPublicAddressError,
  publicOnlyLookup,
} from '../../src/bot-client/index.ts';
import { loadConfig } from '../../src/config.ts';
import type { BotRecord } from '../../src/model/records.ts';
import { ipLiteralHost, isPublicAddress } from '../../src/net/address-policy.ts';
import type { BotStore } from '../../src/store/bot-store.ts';
import type { RatingStore } from '../../src/store/rating-store.ts';
import { firstTurnState } from '../support/loopback-bot.ts';

/** Not global unicast. `since17` marks the forms accepted before issue 17. */
const refused: readonly { address: string; why: string; since17?: true }[] = [
  // IPv6 forms that carry an IPv4 address, whatever that address is.
  { address: '::ffff:0:7f00:1', why: 'IPv4-translated 127.0.0.1', since17: true },
  { address: '::ffff:0:a9fe:a9fe', why: 'IPv4-translated metadata', since17: true },
  { address: '::ffff:0:808:808', why: 'IPv4-translated, public inside', since17: true },
  { address: '::7f00:1', why: 'IPv4-compatible 127.0.0.1', since17: true },
  { address: '::127.0.0.1', why: 'IPv4-compatible, dotted', since17: true },
  { address: '::a9fe:a9fe', why: 'IPv4-compatible metadata', since17: true },
  { address: '::169.254.169.254', why: 'IPv4-compatible metadata, dotted', since17: true },
  { address: '::808:808', why: 'IPv4-compatible, public inside', since17: true },
  { address: '2002:7f00:1::', why: '6to4 of 127.0.0.1', since17: true },
  { address: '2002:a9fe:a9fe::', why: '6to4 of metadata', since17: true },
  { address: '2002:808:808::1', why: '6to4, public inside', since17: true },
  { address: '64:ff9b:1::7f00:1', why: 'NAT64 local-use 127.0.0.1', since17: true },
  { address: '64:ff9b:1:ffff::1', why: 'NAT64 local-use, end of the /48', since17: true },
  { address: '64:ff9b::7f00:1', why: 'NAT64 127.0.0.1' },
  { address: '64:ff9b::10.0.0.1', why: 'NAT64, dotted' },
  { address: '64:ff9b::808:808', why: 'NAT64, public inside' },
  { address: '2001::1', why: 'Teredo', since17: true },
  { address: '2001:0:4136:e378:8000:63bf:3fff:fdd2', why: 'Teredo', since17: true },
  { address: '::ffff:127.0.0.1', why: 'IPv4-mapped 127.0.0.1' },
  { address: '::ffff:7f00:1', why: 'IPv4-mapped 127.0.0.1, hex' },
  { address: '0:0:0:0:0:ffff:a9fe:a9fe', why: 'IPv4-mapped metadata' },
  { address: '::ffff:10.0.0.1', why: 'IPv4-mapped private' },
  { address: '::ffff:8.8.8.8', why: 'IPv4-mapped, public inside', since17: true },
  // Other IPv6 that is not global unicast.
  { address: 'fec0::1', why: 'site-local', since17: true },
  { address: 'feff:ffff::1', why: 'site-local, end of fec0::/10', since17: true },
  { address: '5f00::1', why: 'outside 2000::/3', since17: true },
  { address: '2001:2::1', why: 'benchmarking', since17: true },
  { address: '3fff::1', why: 'documentation (RFC 9637)', since17: true },
  { address: '::', why: 'unspecified' },
  { address: '::1', why: 'loopback' },
  { address: '100::1', why: 'discard-only' },
  { address: '2001:db8::1', why: 'documentation' },
  { address: 'fc00::1', why: 'unique local' },
  { address: 'fd12:3456::1', why: 'unique local' },
  { address: 'fe80::1', why: 'link-local' },
  { address: 'febf::1', why: 'link-local, end of fe80::/10' },
  { address: 'ff02::1', why: 'multicast' },
  { address: 'ff0e::1', why: 'global multicast' },
  // IPv4.
  { address: '0.0.0.0', why: 'this network' },
  { address: '0.1.2.3', why: 'this network' },
  { address: '10.0.0.1', why: 'private' },
  { address: '100.64.0.1', why: 'carrier-grade NAT' },
  { address: '100.127.255.255', why: 'carrier-grade NAT, end' },
  { address: '127.0.0.1', why: 'loopback' },
  { address: '127.1.2.3', why: 'loopback' },
  { address: '169.254.169.254', why: 'link-local, cloud metadata' },
  { address: '172.16.0.1', why: 'private' },
  { address: '172.31.255.255', why: 'private, end' },
  { address: '192.0.0.1', why: 'IETF protocol assignments' },
  { address: '192.0.2.1', why: 'documentation' },
  { address: '192.88.99.1', why: '6to4 relay anycast', since17: true },
  { address: '192.168.1.1', why: 'private' },
  { address: '198.18.0.1', why: 'benchmarking' },
  { address: '198.19.255.255', why: 'benchmarking, end' },
  { address: '198.51.100.1', why: 'documentation' },
  { address: '203.0.113.1', why: 'documentation' },
  { address: '224.0.0.1', why: 'multicast' },
  { address: '239.255.255.250', why: 'multicast' },
  { address: '240.0.0.1', why: 'reserved' },
  { address: '255.255.255.255', why: 'broadcast' },
];

/** Global unicast, some just outside a refused range: these must stay allowed. */
const allowed: readonly { address: string; why: string }[] = [
  { address: '8.8.8.8', why: 'Google DNS' },
  { address: '1.1.1.1', why: 'Cloudflare DNS' },
  { address: '93.184.216.34', why: 'public' },
  { address: '100.63.255.255', why: 'just below carrier-grade NAT' },
  { address: '100.128.0.0', why: 'just above carrier-grade NAT' },
  { address: '172.32.0.1', why: 'just above 172.16.0.0/12' },
  { address: '198.17.255.255', why: 'just below benchmarking' },
  { address: '198.20.0.0', why: 'just above benchmarking' },
  { address: '2606:4700:4700::1111', why: 'Cloudflare DNS' },
  { address: '2001:4860:4860::8888', why: 'Google DNS' },
  { address: '2001:4860:4860::8.8.136.136', why: 'Google DNS, dotted tail' },
  { address: '2620:fe::fe', why: 'Quad9' },
  { address: '2003::1', why: 'just above 6to4' },
  { address: '2001:1:ffff::1', why: 'just below IPv6 benchmarking' },
];

const newlyRefused = refused.filter((entry) => entry.since17);
const urlOf = (address: string) =>
  address.includes(':') ? `http://[${address}]:4401/turn` : `http://${address}:4401/turn`;

/** A BotService over a store that keeps what is registered, to see the URL checks alone. */
function botService(allowPrivateBotUrls: boolean): BotService {
  let stored: BotRecord | null = null;
  const bots = {
    createBot: async (bot: unknown) => {
      stored = bot as BotRecord;
    },
    getBot: async () => stored,
  } as unknown as BotStore;
  const stores = { bots, ratings: {} as RatingStore };
  return new BotService({
    stores,
    clock: { now: () => 1_700_000_000_000 },
    random: (size) => new Uint8Array(size).fill(7),
    startingRating: 1500,
    allowPrivateBotUrls,
  });
}

/** Runs `guardConnector` over a connector that "connects" to `peer` without touching the network. */
function connectTo(hostname: string, peer: string, allowPrivateAddresses: boolean) {
  let baseCalled = false;
  let destroyed = false;
  const socket = {
    remoteAddress: peer,
    destroy: () => {
      destroyed = true;
    },
  } as unknown as Socket;
  const base: buildConnector.connector = (_, callback) => {
    baseCalled = true;
    callback(null, socket);
  };
  const connect = guardConnector(base, { allowPrivateAddresses });
  return new Promise<{ error: Error | null; baseCalled: boolean; destroyed: boolean; passed: boolean }>(
    (resolve) => {
      connect({ hostname, protocol: 'http:', port: '4401' }, (error, handed) => {
        resolve({ error, baseCalled, destroyed, passed: handed === socket });
      });
    },
  );
}

function lookup(host: string) {
  return new Promise<{ error: Error | null; address: string | LookupAddress[] }>((resolve) => {
    publicOnlyLookup(botResolver())(host, { all: true }, (error, address) => resolve({ error, address }));
  });
}

describe('the address policy', () => {
  describe('isPublicAddress', () => {
    it.each(refused)('refuses $address ($why)', ({ address }) => {
      expect(isPublicAddress(address)).toBe(false);
      expect(isPublicAddress(`[${address}]`)).toBe(false);
    });

    it.each(allowed)('allows $address ($why)', ({ address }) => {
      expect(isPublicAddress(address)).toBe(true);
      expect(isPublicAddress(`[${address}]`)).toBe(true);
    });

    it('refuses zoned link-local addresses, names and IPv4 shorthand', () => {
      for (const address of [
        'fe80::1%eth0',
        '[fe80::1%25eth0]',
        'localhost',
        'example.com',
        '127.1',
        '0x7f.0.0.1',
        '',
      ])
        expect(isPublicAddress(address), address).toBe(false);
    });
  });

  describe('as a URL host literal, at registration', () => {
    const strict = botService(false);

    it.each(refused)('refuses $address ($why) with bots/url-not-allowed', async ({ address }) => {
      const url = urlOf(address);
      expect(ipLiteralHost(new URL(url)), url).not.toBeNull();
      await expect(strict.register({ name: 'sneaky', url })).rejects.toMatchObject({
        code: 'bots/url-not-allowed',
      });
    });

    it.each(allowed)('registers $address ($why)', async ({ address }) => {
      const { bot } = await strict.register({ name: 'public', url: urlOf(address) });
      expect(bot.url).toBe(urlOf(address));
    });
  });

  describe('as a URL host literal, at connect time', () => {
    it.each(newlyRefused)('refuses $address ($why) before connecting', async ({ address }) => {
      const client = new BotClient({ allowPrivateAddresses: false });
      try {
        const outcome = await client.callBot({
          url: urlOf(address),
          webhookSecret: null,
          state: firstTurnState(),
          timeoutMs: 2000,
        });
        expect(outcome).toMatchObject({ ok: false, fault: { reason: 'bot-error' } });
        expect(outcome.ok ? '' : outcome.fault.message).toMatch(/not allowed/);
      } finally {
        await client.close();
      }
    });

    it.each(refused)(
      'the connector refuses the literal $address ($why) without connecting',
      async ({ address }) => {
        const result = await connectTo(address, '8.8.8.8', false);
        expect(result.error).toBeInstanceOf(AddressRefusedError);
        expect(result.baseCalled).toBe(false);
      },
    );
  });

  describe('as a resolved address', () => {
    it.each(refused)('the lookup drops $address ($why)', async ({ address }) => {
      expect((await lookup(address)).error).toBeInstanceOf(NoPublicAddressError);
    });

    it.each(allowed)('the lookup keeps $address ($why)', async ({ address }) => {
      expect(await lookup(address)).toEqual({
        error: null,
        address: [{ address, family: address.includes(':') ? 6 : 4 }],
      });
    });

    it.each(refused)('the socket check refuses a peer at $address ($why)', async ({ address }) => {
      const result = await connectTo('bot.example', address, false);
      expect(result.error).toBeInstanceOf(AddressRefusedError);
      expect(result).toMatchObject({ baseCalled: true, destroyed: true, passed: false });
    });

    it.each(allowed)('the socket check passes a peer at $address ($why)', async ({ address }) => {
      const result = await connectTo('bot.example', address, false);
      expect(result).toMatchObject({ error: null, destroyed: false, passed: true });
    });
  });

  describe('with ARENA_ALLOW_PRIVATE_BOT_URLS=true', () => {
    const config = loadConfig({ ARENA_ALLOW_PRIVATE_BOT_URLS: 'true' });
    const lenient = botService(config.allowPrivateBotUrls);

    it('registers loopback and every other refused form', async () => {
      expect(config.allowPrivateBotUrls).toBe(true);
      for (const { address } of refused) {
        const { bot } = await lenient.register({ name: 'local', url: urlOf(address) });
        expect(bot.url).toBe(urlOf(address));
      }
    });

    it('lets the connector reach a loopback peer', async () => {
      for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
        const result = await connectTo('localhost', peer, config.allowPrivateBotUrls);
        expect(result, peer).toMatchObject({ error: null, passed: true });
      }
      const literal = await connectTo('127.0.0.1', '127.0.0.1', config.allowPrivateBotUrls);
      expect(literal).toMatchObject({ error: null, baseCalled: true, passed: true });
    });
  });
});
