import { pino } from 'pino';
import request from 'supertest';
import { BotClient } from '../../src/bot-client/index.ts';
import { createRunner } from '../../src/pool/worker-pool.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { admin } from './api.ts';
import type { Harness } from './harness.ts';

/**
 * A match runner on the harness' stores, calling bots over real HTTP, wired as a worker pool wires
 * it (createRunner): push bots over HTTP, pull bots through Redis. `pauseAfterFaults` defaults to
 * the harness configuration.
 */
export function runnerFor(h: Harness, options: { pauseAfterFaults?: number } = {}) {
  const client = new BotClient({ allowPrivateAddresses: true });
  const pull = new RedisPullStore(h.redis, h.prefix);
  const { pauses } = h.config.matchmaking;
  const config = {
    ...h.config,
    matchmaking: {
      ...h.config.matchmaking,
      pauses: { ...pauses, afterFaults: options.pauseAfterFaults ?? pauses.afterFaults },
    },
  };
  const runner = createRunner({
    stores: h.stores,
    pull,
    clock: h.clock,
    config,
    logger: pino({ level: 'silent' }),
    client,
  });
  return {
    runner,
    close: async () => {
      await client.close();
      await pull.close();
    },
  };
}

/** Creates a match through the API (as the admin) and returns its id. */
export async function createMatch(
  h: Harness,
  black: string,
  white: string,
  extra: { rules?: Record<string, unknown>; rated?: boolean } = {},
): Promise<string> {
  const res = await request(h.app)
    .post('/v1/matches')
    .set(admin)
    .send({ black, white, ...extra });
  if (res.status !== 202)
    throw new Error(`creating a match answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id;
}
