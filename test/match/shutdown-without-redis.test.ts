import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { pliesPlayed } from '../support/match-events.ts';
import { connectionIs, PrivateRedis } from '../support/private-redis.ts';
import { exited, spawnWorker } from '../support/worker-process.ts';

let redis: PrivateRedis;
let h: Harness;
const bots: LoopbackBot[] = [];
beforeAll(async () => {
  redis = await PrivateRedis.start();
  h = await createHarness({ REDIS_URL: redis.url });
});
afterAll(async () => {
  await Promise.all(bots.map((bot) => bot.close()));
  await h.close();
  await redis.stop();
});

describe('a worker told to stop while Redis is gone', { timeout: 60_000 }, () => {
  it('gives up waiting after its grace period and a margin, and exits with an error', async () => {
    for (let i = 0; i < 2; i++) bots.push(await startLoopbackBot(playsFirstLegal(25)));
    const a = await registerBot(h, { name: 'stuck-a', url: bots[0]!.url });
    const b = await registerBot(h, { name: 'stuck-b', url: bots[1]!.url });
    const id = await createMatch(h, a.id, b.id);
    const worker = spawnWorker(h, { SHUTDOWN_GRACE_MS: '200', SHUTDOWN_STALL_MS: '1000' });
    await pliesPlayed(h, id, 4);

    await redis.stop();
    worker.kill('SIGTERM');
    expect(await exited(worker)).toBe(1);

    // Its matches are resumed by another worker from their records, as after a kill (see
    // worker.test.ts). This Redis keeps nothing on disk, so here it only comes back for the cleanup.
    await redis.start();
    await connectionIs(h.redis, 'ready');
  });
});
