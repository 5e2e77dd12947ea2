import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { BotClient, type BotFault } from '../../src/bot-client/index.ts';
import {
  answer,
  closedPort,
  firstTurnState,
  type LoopbackBot,
  startLoopbackBot,
} from '../support/loopback-bot.ts';

const TEN_MB = 10 * 1024 * 1024;

describe('BotClient.callBot faults', () => {
  const bots: LoopbackBot[] = [];
  let client: BotClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await Promise.all(bots.splice(0).map((bot) => bot.close()));
  });

  async function bot(handler: Parameters<typeof startLoopbackBot>[0]): Promise<LoopbackBot> {
    const started = await startLoopbackBot(handler);
    bots.push(started);
    return started;
  }

  async function fault(url: string, timeoutMs = 2000): Promise<BotFault> {
    client ??= new BotClient({ allowPrivateAddresses: true });
    const outcome = await client.callBot({ url, webhookSecret: null, state: firstTurnState(), timeoutMs });
    if (outcome.ok) throw new Error(`expected a fault, got ${JSON.stringify(outcome)}`);
    return outcome.fault;
  }

  describe('when the bot holds its answer past the limit', () => {
    it('is a timeout measured at about the limit', async () => {
      const slow = await bot(() => {}); // never answers
      const result = await fault(slow.url, 200);
      expect(result.reason).toBe('timeout');
      expect(result.latencyMs).toBeGreaterThanOrEqual(190);
      expect(result.latencyMs).toBeLessThan(2000);
    });

    it('is a timeout when the headers come in time but the body does not', async () => {
      const slow = await bot((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"action":');
      });
      expect((await fault(slow.url, 200)).reason).toBe('timeout');
    });
  });

  describe('when the bot answers an error status', () => {
    it('is a bot-error with the status and the start of the body', async () => {
      const failing = await bot((_, res) =>
        answer(res, 500, `Internal Server Error ${'x'.repeat(1000)}`, 'text/plain'),
      );
      const result = await fault(failing.url);
      expect(result).toMatchObject({ reason: 'bot-error', status: 500 });
      expect(result.body?.startsWith('Internal Server Error xxx')).toBe(true);
      expect(result.body?.length).toBe(200);
    });
  });

  describe('when the bot answers something that is not a BotAction', () => {
    it.each([
      ['garbage', 'e3 please'],
      ['an empty body', ''],
      ['JSON of the wrong type', '"e3"'],
      ['a square off the board', '{"action":"i9"}'],
      ['a pass', '{"action":"pass"}'],
      ['an unknown direction', '{"action":"e3","direction":"up"}'],
      ['an extra field', '{"action":"e3","comment":"gg"}'],
    ])('is an invalid-response for %s', async (_, body) => {
      const babbling = await bot((__, res) => answer(res, 200, body, 'text/plain'));
      const result = await fault(babbling.url);
      expect(result).toMatchObject({ reason: 'invalid-response', status: 200 });
      expect(result.body).toBe(body === '' ? undefined : body);
    });
  });

  describe('when the bot closes the connection without answering', () => {
    it('is a bot-error', async () => {
      const rude = await bot((_, __, req) => req.socket.destroy());
      expect((await fault(rude.url)).reason).toBe('bot-error');
    });
  });

  describe('when the bot sends a 10 MB body', () => {
    it('is an invalid-response found without reading the body', async () => {
      let pushed = 0;
      let finished = false;
      let closed: Promise<unknown> = Promise.resolve();
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const flooding = await bot((_, res) => {
        closed = once(res, 'close');
        res.on('finish', () => {
          finished = true;
        });
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length to go by
        const pump = () => {
          while (pushed < TEN_MB) {
            pushed += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      });
      const result = await fault(flooding.url, 20_000);
      expect(result.reason).toBe('invalid-response');
      expect(result.message).toMatch(/larger than 65536 bytes/);
      expect(result.latencyMs).toBeLessThan(5000);
      await closed; // the arena dropped the connection
      expect(finished).toBe(false);
      // Kernel buffers on loopback absorb a few MB; a client reading it all would let all 10 MB through.
      expect(pushed).toBeLessThan(TEN_MB);
    });

    it('is an invalid-response at once when content-length says so', async () => {
      const flooding = await bot((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': TEN_MB });
        res.write('{"action":"e3"');
      });
      const result = await fault(flooding.url, 20_000);
      expect(result.reason).toBe('invalid-response');
      expect(result.message).toMatch(/larger than/);
    });
  });

  describe('when the bot redirects', () => {
    it('is a bot-error and the target is never requested', async () => {
      const target = await bot((_, res) => answer(res, 200, { action: 'e3' }));
      const redirecting = await bot((_, res) => {
        res.writeHead(302, { location: `http://127.0.0.1:${target.port}/elsewhere` });
        res.end();
      });
      const result = await fault(redirecting.url);
      expect(result).toMatchObject({ reason: 'bot-error', status: 302 });
      expect(result.message).toMatch(/redirects are not followed/);
      expect(target.requests).toHaveLength(0);
      expect(target.connections()).toBe(0);
    });
  });

  describe('when nothing listens at the URL', () => {
    it('is a bot-error', async () => {
      const result = await fault(`http://127.0.0.1:${await closedPort()}/`);
      expect(result.reason).toBe('bot-error');
      expect(result.message).toMatch(/refused/);
    });
  });

  describe('when the host name does not resolve', () => {
    it('is a bot-error', async () => {
      // A generous limit: without a reachable DNS server the resolver takes seconds to give up.
      const result = await fault('http://no-such-bot.invalid/', 20_000);
      expect(result.reason).toBe('bot-error');
    });
  });

  describe('when the URL is not http or https', () => {
    it.each(['ftp://127.0.0.1/bot', 'file:///etc/passwd', 'not a url'])('refuses %s', async (url) => {
      expect((await fault(url)).reason).toBe('bot-error');
    });
  });
});
