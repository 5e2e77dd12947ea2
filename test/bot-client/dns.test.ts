import { pbkdf2 } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotClient, botResolver, publicOnlyLookup } from '../../src/bot-client/index.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startDnsServer } from '../support/dns-server.ts';
import { firstTurnState } from '../support/loopback-bot.ts';

const silent = Array.from({ length: 8 }, (_, i) => `silent-${i}.test`);
let dns: Awaited<ReturnType<typeof startDnsServer>>;
beforeAll(async () => {
  dns = await startDnsServer({
    'bot.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'mixed.test': ['10.0.0.5', '93.184.216.34'],
    'private.test': ['10.0.0.5'],
    ...Object.fromEntries(silent.map((name) => [name, 'never' as const])),
  });
});
afterAll(() => dns?.close());

function lookup(host: string) {
  return new Promise<{ error: Error | null; address: string | LookupAddress[] }>((resolve) => {
    publicOnlyLookup(botResolver([dns.server]))(host, { all: true }, (error, address) =>
      resolve({ error, address }),
    );
  });
}

describe("a bot's host name", () => {
  it('is asked of the DNS servers the arena is given, for both families, keeping the public addresses', async () => {
    expect(await lookup('bot.test')).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    });
    expect((await lookup('mixed.test')).address).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(dns.asked).toContain('bot.test');
  });

  it('with only private addresses is told as one that does not exist, naming no address', async () => {
    const client = new BotClient({ allowPrivateAddresses: false, dnsServers: [dns.server] });
    try {
      const call = (host: string) =>
        client.callBot({
          url: `http://${host}/`,
          webhookSecret: null,
          state: firstTurnState(),
          timeoutMs: 3000,
        });
      const [internal, missing] = await Promise.all([call('private.test'), call('missing.test')]);
      for (const [outcome, host] of [
        [internal, 'private.test'],
        [missing, 'missing.test'],
      ] as const) {
        expect(outcome).toMatchObject({
          ok: false,
          fault: {
            reason: 'bot-error',
            cause: 'dns',
            message: `the bot's host name ${host} does not resolve to a public address`,
          },
        });
      }
    } finally {
      await client.close();
    }
  });

  it("whose DNS server never answers leaves the process' thread pool free meanwhile", async () => {
    // The OS resolver would hold one of libuv's four pool threads a lookup: eight such names
    // stalled every other bot's new connection, and file reads and crypto with them.
    const client = new BotClient({ allowPrivateAddresses: false, dnsServers: [dns.server] });
    try {
      let settled = 0;
      const calls = silent.map((host) =>
        client
          .callBot({ url: `http://${host}/`, webhookSecret: null, state: firstTurnState(), timeoutMs: 1500 })
          .finally(() => settled++),
      );
      await Promise.all(
        Array.from({ length: 4 }, () => promisify(pbkdf2)('secret', 'salt', 1000, 32, 'sha256')),
      );
      expect(settled).toBe(0);
      for (const outcome of await Promise.all(calls))
        expect(outcome).toMatchObject({ ok: false, fault: { reason: 'timeout' } });
      for (const host of silent) expect(dns.asked).toContain(host);
    } finally {
      await client.close();
    }
  });
});

describe('BOT_DNS_SERVERS', () => {
  it('is a list of addresses, each with an optional port, and nothing else', () => {
    expect(
      loadConfig({ BOT_DNS_SERVERS: '1.1.1.1, [2606:4700::1111]:53,8.8.8.8:5353' }).botDnsServers,
    ).toEqual(['1.1.1.1', '[2606:4700::1111]:53', '8.8.8.8:5353']);
    expect(loadConfig({}).botDnsServers).toEqual([]);
    for (const bad of ['dns.google', '1.1.1.1:99999', '1.1.1.1:'])
      expect(() => loadConfig({ BOT_DNS_SERVERS: bad }), bad).toThrow(ConfigError);
  });
});
