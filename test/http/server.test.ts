import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/server.ts';
import { registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';

const LIMITS = {
  headersTimeoutMs: 1000,
  requestTimeoutMs: 1500,
  keepAliveTimeoutMs: 300,
  maxConnectionsPerAddress: 4,
};

let h: Harness;
let server: Server;
let port: number;
beforeAll(async () => {
  h = await createHarness({ SSE_KEEPALIVE_MS: '300' });
  server = createHttpServer(h.app, LIMITS, pino({ level: 'silent' }));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  await h.close();
});

/** A raw connection that records what the server sends and when it closes. */
async function rawConnection() {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise((done) => socket.once('connect', done));
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  return { socket, closed, received: () => received };
}

/** The problem document at the end of a raw answer. */
function problemOf(raw: string): { status: number; code: string } {
  return JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
}

describe('the HTTP server', () => {
  it('cuts off a client that sends its headers too slowly (slowloris)', async () => {
    const client = await rawConnection();
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: arena\r\n');
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(problemOf(client.received()).code).toBe('request/timeout');
  });

  describe('when the HTTP parser refuses a request', () => {
    it.each([
      [
        'a length beside a chunked encoding',
        'POST /v1/bots HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
        400,
        'request/malformed-http',
      ],
      ['a bad request line', 'GARBAGE\r\n\r\n', 400, 'request/malformed-http'],
      [
        'a negative length',
        'POST /v1/bots HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n',
        400,
        'request/malformed-http',
      ],
      [
        'headers too large',
        `GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`,
        431,
        'request/headers-too-large',
      ],
    ])('answers %s with a problem document and closes the connection', async (_name, raw, status, code) => {
      const client = await rawConnection();
      client.socket.write(raw);
      await client.closed;
      expect(client.received()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(client.received()).toMatch(/\r\nConnection: close\r\n/i);
      expect(client.received()).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/i);
      expect(problemOf(client.received())).toMatchObject({ status, code });
    });
  });

  it('cuts off a body that does not arrive in time', async () => {
    const client = await rawConnection();
    client.socket.write(
      'POST /v1/bots HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
    );
    await client.closed;
    expect(client.received()).not.toMatch(/^HTTP\/1\.1 2/);
  });

  it('refuses a body announced too large before reading it, and closes the connection', async () => {
    const client = await rawConnection();
    client.socket.write(
      'POST /v1/bots HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\nContent-Length: 20000000\r\n\r\n{"name":"',
    );
    // Only a few bytes of the 20 MB were sent: the answer and the close come without the rest.
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 413/);
    expect(client.received()).toContain('request/too-large');
  });

  it('closes an idle keep-alive connection', async () => {
    const client = await rawConnection();
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: arena\r\nConnection: keep-alive\r\n\r\n');
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200/);
  });

  it('does not cut an event stream that outlives the request timeout', async () => {
    const bot = await registerBot(h, { name: 'long-listener' });
    const client = await rawConnection();
    client.socket.write(
      `GET /v1/bots/me/events HTTP/1.1\r\nHost: arena\r\nAuthorization: Bearer ${bot.token}\r\n\r\n`,
    );
    let open = true;
    void client.closed.then(() => {
      open = false;
    });
    await new Promise((done) => setTimeout(done, LIMITS.requestTimeoutMs + 1000));
    const before = client.received().length;
    await new Promise((done) => setTimeout(done, 700));
    expect(open).toBe(true);
    expect(client.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(client.received().length).toBeGreaterThan(before); // keep-alive comments still arrive
    client.socket.destroy();
  });

  it('closes the newest connection past the per-address cap, and takes new ones once one closes', async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.maxConnectionsPerAddress }, rawConnection));
    const refused = await rawConnection();
    refused.socket.write('GET /healthz HTTP/1.1\r\nHost: arena\r\n\r\n');
    await refused.closed;
    expect(refused.received()).toBe('');

    held[0]!.socket.destroy();
    await held[0]!.closed;
    const again = await rawConnection();
    again.socket.write('GET /healthz HTTP/1.1\r\nHost: arena\r\nConnection: close\r\n\r\n');
    await again.closed;
    expect(again.received()).toMatch(/^HTTP\/1\.1 200/);
    for (const client of held) client.socket.destroy();
  });
});
