import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotClient } from '../../src/bot-client/index.ts';
import { firstTurnState } from '../support/loopback-bot.ts';

/** A throwaway self-signed certificate, made per run (no key material lives in the repository). */
function selfSignedCertificate(keyOptions: readonly string[]): { key: Buffer; cert: Buffer } | null {
  const dir = mkdtempSync(join(tmpdir(), 'bot-client-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', ...keyOptions, '-nodes'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1'],
        ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const certificate = selfSignedCertificate(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
// DHE suites sign with RSA.
const rsaCertificate = selfSignedCertificate(['-newkey', 'rsa:2048']);

describe.skipIf(certificate === null)('BotClient over https', () => {
  let server: Server;
  let requests = 0;
  beforeAll(async () => {
    server = createServer(certificate ?? {}, (_, res) => {
      requests++;
      res.end('{"action":"e3"}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  describe('when the bot presents a certificate nobody vouches for', () => {
    it('is a bot-error naming TLS, and no request is made', async () => {
      const client = new BotClient({ allowPrivateAddresses: true });
      try {
        const { port } = server.address() as AddressInfo;
        const outcome = await client.callBot({
          url: `https://127.0.0.1:${port}/`,
          webhookSecret: null,
          state: firstTurnState(),
          timeoutMs: 5000,
        });
        expect(outcome).toMatchObject({ ok: false, fault: { reason: 'bot-error' } });
        expect(outcome.ok ? '' : outcome.fault.message).toMatch(/^TLS error/);
        expect(requests).toBe(0);
      } finally {
        await client.close();
      }
    });
  });
});

// A handshake runs on the thread that keeps the matches' clocks, and finite-field Diffie-Hellman
// lets the bot's server choose how much work it is (10,000-bit parameters stalled it about a second
// per connection). The client offers none, so such a server finds nothing to agree on; Node's client
// would otherwise finish the handshake, DH work and all, before it refuses the certificate.
describe.skipIf(rsaCertificate === null)(
  'a bot whose TLS server asks for finite-field Diffie-Hellman',
  () => {
    it.each([
      [
        'TLS 1.2 with only DHE suites',
        { maxVersion: 'TLSv1.2', ciphers: 'DHE-RSA-AES128-GCM-SHA256', dhparam: 'auto' },
      ],
      ['TLS 1.3 with only an ffdhe group', { minVersion: 'TLSv1.3', ecdhCurve: 'ffdhe2048' }],
    ] as const)('finds no handshake with %s', async (_what, tlsOptions) => {
      let handshakes = 0;
      const refusals: string[] = [];
      const dhOnly = createServer({ ...rsaCertificate, ...tlsOptions }, (_, res) =>
        res.end('{"action":"e3"}'),
      );
      dhOnly.on('secureConnection', () => handshakes++);
      dhOnly.on('tlsClientError', (error: Error & { code?: string }) =>
        refusals.push(error.code ?? error.message),
      );
      dhOnly.listen(0, '127.0.0.1');
      await once(dhOnly, 'listening');
      const client = new BotClient({ allowPrivateAddresses: true });
      try {
        const outcome = await client.callBot({
          url: `https://127.0.0.1:${(dhOnly.address() as AddressInfo).port}/`,
          webhookSecret: null,
          state: firstTurnState(),
          timeoutMs: 5000,
        });
        expect(outcome).toMatchObject({ ok: false, fault: { reason: 'bot-error', cause: 'tls' } });
        expect(handshakes).toBe(0);
        expect(refusals.join(' ')).toMatch(/NO_SHARED_CIPHER|NO_SUITABLE|SHARED_GROUP/);
      } finally {
        await client.close();
        dhOnly.closeAllConnections();
        await new Promise((resolve) => dhOnly.close(resolve));
      }
    });
  },
);
