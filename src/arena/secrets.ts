import { createHash, timingSafeEqual } from 'node:crypto';
import type { RandomBytes } from '../support/clock.ts';

/** Bot tokens: `rvb_` and 32 random bytes. Only their SHA-256 is stored. */
export function newBotToken(random: RandomBytes): string {
  return `rvb_${Buffer.from(random(32)).toString('base64url')}`;
}

/** What an account's token starts with: the arena looks it up among accounts, not bots. */
export const ACCOUNT_TOKEN_PREFIX = 'rva_';

/** Account tokens: `rva_` and 32 random bytes. Only their SHA-256 is stored. */
export function newAccountToken(random: RandomBytes): string {
  return `${ACCOUNT_TOKEN_PREFIX}${Buffer.from(random(32)).toString('base64url')}`;
}

/** A Standard Webhooks signing secret: `whsec_` and base64 of 24 random bytes. */
export function newWebhookSecret(random: RandomBytes): string {
  return `whsec_${Buffer.from(random(24)).toString('base64')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compares secrets in constant time, so timing tells an attacker nothing. */
export function secretsEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
