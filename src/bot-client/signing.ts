import { createHmac } from 'node:crypto';
import type { RandomBytes } from '../support/clock.ts';
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
export function webhookId(matchId: string, ply: number | 'challenge', random: RandomBytes): string {
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
  const timestamp = webhookTimestamp(timestampMs);
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': webhookSignature(secret, id, timestamp, payload),
  };
}

/** The `webhook-timestamp` of a moment: whole seconds since the epoch. */
export function webhookTimestamp(timestampMs: number): string {
  return String(Math.floor(timestampMs / 1000));
}

/**
 * The `webhook-signature` of `signedHeaders`, for a caller that puts the headers in its own object
 * (the bot client builds each call's headers as one literal).
 *
 * @example
 * webhookSignature(secret, 'match_x-1-abc', webhookTimestamp(Date.now()), '{"ply":1}'); // 'v1,…'
 */
export function webhookSignature(
  secret: string,
  id: string,
  timestamp: string,
  payload: string | Buffer,
): string {
  // The payload goes in by itself: joined to the prefix it would be copied into one more flat
  // string the size of the body, on every call.
  const signature = createHmac('sha256', hmacKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(payload)
    .digest('base64');
  return `v1,${signature}`;
}
