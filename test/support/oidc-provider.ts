import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Provider from 'oidc-provider';

/** The one person the test provider signs in, without asking (login and consent granted at once). */
export const ALICE = Object.freeze({ sub: 'alice-123', name: 'Alice Liddell', preferred_username: 'alice' });

export interface TestProvider {
  readonly issuer: string;
  /** Registers the arena as a client, sent back to `redirectUri`; once, before any sign-in. */
  register(client: { clientId: string; clientSecret: string; redirectUri: string }): void;
  close(): Promise<void>;
}

/**
 * A local OpenID provider (oidc-provider) on a loopback port, for the arena's OpenID sign-in: the
 * authorization code flow with PKCE required, a signing key of its own, and an interaction that
 * signs ALICE in and grants consent by itself, so a test walks the flow with plain HTTP. Its port is
 * known before the client is registered, as the arena needs the issuer in its configuration and the
 * provider needs the arena's port in its client.
 */
export async function startTestProvider(): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    register({ clientId, clientSecret, redirectUri }) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            response_types: ['code'],
            grant_types: ['authorization_code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        findAccount: async (_ctx, sub) =>
          sub === ALICE.sub ? { accountId: sub, claims: async () => ({ ...ALICE }) } : undefined,
        claims: { openid: ['sub'], profile: ['name', 'preferred_username'] },
        conformIdTokenClaims: false,
        pkce: { required: () => true },
        cookies: { keys: [randomBytes(32).toString('base64url')] },
        jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] },
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        ttl: {
          AccessToken: 600,
          AuthorizationCode: 60,
          IdToken: 600,
          Interaction: 600,
          Session: 3600,
          Grant: 3600,
        },
      });
      const app = express();
      app.get('/interaction/:uid', async (req, res, next) => {
        try {
          const details = await provider.interactionDetails(req, res);
          if (details.prompt.name === 'login') {
            await provider.interactionFinished(
              req,
              res,
              { login: { accountId: ALICE.sub } },
              {
                mergeWithLastSubmission: false,
              },
            );
            return;
          }
          const grant = new provider.Grant({
            accountId: details.session!.accountId,
            clientId: details.params.client_id as string,
          });
          const missing = details.prompt.details as {
            missingOIDCScope?: string[];
            missingOIDCClaims?: string[];
          };
          if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
          if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
          await provider.interactionFinished(
            req,
            res,
            { consent: { grantId: await grant.save() } },
            {
              mergeWithLastSubmission: true,
            },
          );
        } catch (error) {
          next(error);
        }
      });
      app.use(provider.callback());
      server.on('request', app);
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
