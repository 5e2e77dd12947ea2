import request from 'supertest';
import { rateLimitPrefix } from '../../src/config.ts';
import { arenaKeyPatterns } from '../../src/redis/maintenance.ts';
import type { Harness } from './harness.ts';
import { ADMIN_TOKEN } from './harness.ts';
import { scanKeys } from './redis-keys.ts';

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
export const admin = bearer(ADMIN_TOKEN);

export interface RegisteredBot {
  readonly id: string;
  readonly name: string;
  readonly token: string;
  readonly webhookSecret?: string;
}

/** Registers a bot through the API and returns its id and secrets. */
export async function registerBot(
  h: Harness,
  body: { name: string; url?: string; description?: string; acceptsChallenges?: boolean },
): Promise<RegisteredBot> {
  const res = await request(h.app).post('/v1/bots').send(body);
  if (res.status !== 201)
    throw new Error(`registering ${body.name} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return {
    id: res.body.id,
    name: res.body.name,
    token: res.body.token,
    webhookSecret: res.body.webhookSecret,
  };
}

/**
 * Every key of the harness's arena but the rate limiters' (those under its prefix, and on a cluster
 * under the tags of its own key spaces: `arenaKeyPatterns`): "nothing was written" checks compare these.
 */
export async function storedKeys(h: Harness): Promise<string[]> {
  const keys = (
    await Promise.all(arenaKeyPatterns(h.prefix).map((pattern) => scanKeys(h.redis, pattern)))
  ).flat();
  return keys.filter((key) => !key.startsWith(`${rateLimitPrefix(h.prefix)}:rate:`)).sort();
}
