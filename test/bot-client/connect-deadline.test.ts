import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BotClient } from '../../src/bot-client/index.ts';
import { firstTurnState } from '../support/loopback-bot.ts';

/**
 * A TCP server that accepts and then says nothing: an https call to it hangs in the TLS handshake,
 * which undici counts as connecting, so the request never gets its socket while the limit runs.
 */
async function silentServer(): Promise<{ server: Server; sockets: Socket[]; url: string }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, sockets, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/turn` };
}

describe('BotClient.callBot while the connection is still being made', () => {
  let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
  let client: BotClient | undefined;
  afterEach(async () => {
    // Drop the hanging handshakes first: `close()` waits for undici's own queue to empty.
    for (const socket of silent?.sockets ?? []) socket.destroy();
    await new Promise((resolve) => (silent ? silent.server.close(resolve) : resolve(undefined)));
    await client?.close();
    silent = undefined;
    client = undefined;
  });

  describe('when the limit passes', () => {
    it('is a timeout at the limit, not at undici connect timeout', async () => {
      silent = await silentServer();
      client = new BotClient({ allowPrivateAddresses: true });
      const outcome = await client.callBot({
        url: silent.url,
        webhookSecret: null,
        state: firstTurnState(),
        timeoutMs: 200,
      });
      expect(outcome).toMatchObject({
        ok: false,
        fault: { reason: 'timeout', message: 'the bot did not answer within 200 ms' },
      });
      expect(outcome.ok ? 0 : outcome.fault.latencyMs).toBeLessThan(2000);
    });
  });

  describe('when the caller aborts', () => {
    it('rejects with the reason at once', async () => {
      silent = await silentServer();
      client = new BotClient({ allowPrivateAddresses: true });
      const caller = new AbortController();
      const call = client.callBot({
        url: silent.url,
        webhookSecret: null,
        state: firstTurnState(),
        timeoutMs: 10_000,
        signal: caller.signal,
      });
      const server = silent.server;
      await once(server, 'connection');
      const aborted = performance.now();
      caller.abort(new Error('worker shutting down'));
      await expect(call).rejects.toThrow('worker shutting down');
      expect(performance.now() - aborted).toBeLessThan(1000);
    });
  });
});
