import type { QueueEvents } from 'bullmq';
import { afterAll, beforeAll } from 'vitest';
import { registerBot } from './api.ts';
import { createHarness, type Harness } from './harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from './loopback-bot.ts';
import { matchQueueEvents } from './queue-events.ts';

/**
 * What a file that runs match workers against its harness needs: the harness, its queue's events
 * (to wait for a match's job), and pairs of loopback bots. All are made before the file's tests and
 * closed after them.
 *
 * @example
 * const fixture = workerFixture();
 * const { a, b } = await fixture.pair('killed', 25);
 * await matchJobDone(fixture.h, fixture.events, id, 30_000);
 */
export function workerFixture() {
  let harness: Harness | undefined;
  let queueEvents: QueueEvents | undefined;
  const bots: LoopbackBot[] = [];
  beforeAll(async () => {
    harness = await createHarness();
    queueEvents = await matchQueueEvents(harness);
  });
  afterAll(async () => {
    await queueEvents?.close();
    await Promise.all(bots.map((bot) => bot.close()));
    await harness?.close();
  });
  return {
    get h(): Harness {
      if (harness === undefined) throw new Error('the harness starts before the tests');
      return harness;
    },
    get events(): QueueEvents {
      if (queueEvents === undefined) throw new Error('the queue events start before the tests');
      return queueEvents;
    },
    /** Two bots that play their first legal move after `delayMs`, registered as `<prefix>-a` and `-b`. */
    async pair(prefix: string, delayMs: number) {
      const [x, y] = await Promise.all([
        startLoopbackBot(playsFirstLegal(delayMs)),
        startLoopbackBot(playsFirstLegal(delayMs)),
      ]);
      bots.push(x, y);
      const a = await registerBot(this.h, { name: `${prefix}-a`, url: x.url });
      const b = await registerBot(this.h, { name: `${prefix}-b`, url: y.url });
      return { a, b };
    },
  };
}
