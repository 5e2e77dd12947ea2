import { createHmac } from 'node:crypto';
import type { RandomBytes } from '../clock.ts';
import { boundedMemo } from './memo.ts';

/** The Standard Webhooks headers of one call. */
export interface WebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * A `webhook-id` unique per call and readable in a bot's logs: the match, the ply, then 12 random
 * hex digits (a retried ply gets a new id; the one network retry inside a call keeps it).
 *
 * @example
 * webhookId('match_01JC3S2Q7G5T1XK0V3JH3W6R2D', 7, randomBytes); // 'match_01JC…-7-9f2c04d1e5ab'
 */
export function webhookId(matchId: string, ply: number, random: RandomBytes): string {
  return `${matchId}-${ply}-${Buffer.from(random(6)).toString('hex')}`;
}

/**
 * The HMAC key of a secret, decoded once: a worker signs every call to the same few bots, and the
 * base64 decoding was a measurable share of each signature. Bounded, since secrets change.
 * A plain Buffer, not a `KeyObject`: `createHmac` was no faster with one.
 */
const hmacKey = boundedMemo(1000, (secret) => {
  if (!secret.startsWith('whsec_')) throw new Error('not a Standard Webhooks secret (whsec_…)');
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  if (key.length === 0) throw new Error('empty webhook secret');
  return key;
});

/**
 * Signs `payload` with the Standard Webhooks scheme: `v1,` + base64 HMAC-SHA256 over
 * `id.timestamp.payload`, keyed with the base64 secret after `whsec_`. A bot checks it with
 * `new Webhook(secret).verify(body, headers)` (the tests do, with the `standardwebhooks` package).
 * Node's own HMAC, rather than that package's pure-JS SHA-256, since this runs on every bot call.
 * Throws if the secret is not a Standard Webhooks secret (the arena made it, so that is a bug).
 *
 * @example
 * signedHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'match_x-1-abc', Date.now(), '{"ply":1}');
 */
export function signedHeaders(
  secret: string,
  id: string,
  timestampMs: number,
  payload: string,
): WebhookHeaders {
  const key = hmacKey(secret);
  const timestamp = String(Math.floor(timestampMs / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${payload}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
