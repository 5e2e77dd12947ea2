import type { QueueEvents } from 'bullmq';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../src/wiring/processes.ts';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchEvent } from '../support/match-events.ts';
import { matchJobDone, matchQueueEvents } from '../support/queue-events.ts';

let h: Harness;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let events: QueueEvents;
let fast: LoopbackBot;
beforeAll(async () => {
  // The default pool (WORKER_CONCURRENCY and the challenge caps as shipped); running matches are
  // handed back at once when the test ends.
  h = await createHarness({ SHUTDOWN_GRACE_MS: '0' });
  workers = await startWorkers(h.config, pino({ level: 'silent' }));
  events = await matchQueueEvents(h);
  fast = await startLoopbackBot(playsFirstLegal());
});
afterAll(async () => {
  await events.close();
  await workers.close();
  await fast.close();
  await h.close();
});

describe('an attacker that fills its caps with matches against its own silent bots', () => {
  it("does not hold up a match between two other bots, which is played while the attacker's wait", async () => {
    // Five silent pull bots, each at its cap of challenges, at the longest limits the arena allows:
    // ten matches that each wait up to 90 s for a move that never comes (more than the 8 worker
    // slots of old, which this reproduced as a 40 s+ wait for everyone else).
    const attackers: RegisteredBot[] = [];
    for (let i = 0; i < 5; i++) attackers.push(await registerBot(h, { name: `silent-${i}` }));
    const { max } = h.config.limits.timeLimitMs;
    const slow = { timeLimitMs: max, overageMs: h.config.limits.overageMs.max };
    const attack: string[] = [];
    for (const [i, attacker] of attackers.entries()) {
      const victim = attackers[(i + 1) % attackers.length]!;
      for (;;) {
        const res = await request(h.app)
          .post('/v1/matches')
          .set(bearer(attacker.token))
          .send({ black: attacker.id, white: victim.id, rules: slow });
        if (res.status === 429) break;
        expect(res.status).toBe(202);
        attack.push(res.body.id);
      }
    }
    expect(attack).toHaveLength(5 * h.config.limits.maxActiveChallengesPerBot);
    // Each has started once its live events begin (its first turn, move or end).
    await Promise.all(attack.map((id) => matchEvent(h, id, () => true)));
    expect((await h.stores.matches.matchIdsInStatus('running', 100)).sort()).toEqual([...attack].sort());

    const a = await registerBot(h, { name: 'third-a', url: fast.url });
    const b = await registerBot(h, { name: 'third-b', url: fast.url });
    const created = await request(h.app).post('/v1/matches').set(admin).send({ black: a.id, white: b.id });
    expect(created.status).toBe(202);
    await matchJobDone(h, events, created.body.id, 30_000);

    const third = (await request(h.app).get(`/v1/matches/${created.body.id}`)).body;
    expect(third.result.reason).toBe('completed');
    // It did not wait behind the attack: every attacking match is still waiting on its silent bot.
    const stillRunning = await h.stores.matches.matchIdsInStatus('running', 100);
    expect(stillRunning.sort()).toEqual([...attack].sort());
  });
});
