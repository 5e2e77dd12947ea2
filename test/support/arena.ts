import { pino } from 'pino';
import request from 'supertest';
import { BotClient } from '../../src/bot-client/index.ts';
import { eloRule } from '../../src/model/rating-rule.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import type { Player } from '../../src/runner/player.ts';
import { playersFor } from '../../src/runner/players.ts';
import { announceStart, PullPlayer } from '../../src/runner/pull-player.ts';
import { MatchRunner } from '../../src/runner/runner.ts';
import { systemClock } from '../../src/support/clock.ts';
import { admin } from './api.ts';
import type { Harness } from './harness.ts';

/**
 * A match runner on the harness' store, calling bots over real HTTP. `pull` plays pull bots;
 * `pauseAfterFaults` defaults to the harness configuration.
 */
export function runnerFor(
  h: Harness,
  options: { pull?: (botId: string) => Player; pauseAfterFaults?: number } = {},
) {
  const { pull } = options;
  const client = new BotClient({ allowPrivateAddresses: true });
  const noPull = (): Player => {
    throw new Error('this test has no pull bots');
  };
  const runner = new MatchRunner({
    stores: h.stores,
    clock: h.clock,
    playerFor: playersFor(client, pull ?? noPull),
    rate: eloRule(h.config.rating),
    logger: pino({ level: 'silent' }),
    announceStart: (match) => announceStart(new RedisPullStore(h.redis, h.prefix), match),
    pauses: {
      ...h.config.matchmaking.pauses,
      afterFaults: options.pauseAfterFaults ?? h.config.matchmaking.pauses.afterFaults,
    },
  });
  return { runner, close: () => client.close() };
}

/** Plays pull bots through the harness' Redis, for `runnerFor(h, { pull: pullPlayers(h) })`. */
export function pullPlayers(h: Harness): (botId: string) => Player {
  const pull = new RedisPullStore(h.redis, h.prefix);
  return (botId) => new PullPlayer(botId, { pull, stores: h.stores, clock: systemClock });
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
