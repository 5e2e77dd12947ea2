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
function selfSignedCertificate(): { key: Buffer; cert: Buffer } | null {
  const dir = mkdtempSync(join(tmpdir(), 'bot-client-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
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

const certificate = selfSignedCertificate();

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
