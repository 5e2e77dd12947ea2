import { describe, expect, it } from 'vitest';
import { createMatch } from '../support/arena.ts';
import { matchWorkerFor } from '../support/match-worker.ts';
import { workerFixture } from '../support/worker-fixture.ts';

const fixture = workerFixture();

/**
 * Runs match `id`'s job on an in-process worker pool and answers how its job ended: BullMQ's
 * failed reason and the attempts it took (a job retried would take the queue's five).
 */
async function jobOutcome(id: string): Promise<{ failedReason: string; attemptsMade: number }> {
  const { h, events } = fixture;
  const worker = await matchWorkerFor(h, 1);
  try {
    const job = await h.queue.queue.getJob(id);
    if (!job) throw new Error(`no job for match ${id}`);
    await expect(job.waitUntilFinished(events, 20_000)).rejects.toThrow();
    const failed = await h.queue.queue.getJob(id);
    return { failedReason: failed?.failedReason ?? '', attemptsMade: failed?.attemptsMade ?? -1 };
  } finally {
    await worker.close();
  }
}

describe('a match no attempt can play', { timeout: 60_000 }, () => {
  it('fails its job at once when its moves do not replay, and is marked aborted', async () => {
    const { a, b } = await fixture.pair('corrupt-moves', 0);
    const id = await createMatch(fixture.h, a.id, b.id, { rated: true });
    // 0xff is no square: the packed moves do not parse.
    await fixture.h.redis.set(fixture.h.stores.keys.moves(id), Buffer.from([0xff]));
    const outcome = await jobOutcome(id);
    expect(outcome.failedReason).toMatch(/cannot be played: its move record is corrupt/);
    expect(outcome.attemptsMade).toBe(1);
    const match = await fixture.h.stores.matches.getMatch(id);
    expect(match?.status).toBe('aborted');
    expect(match?.result?.reason).toBe('aborted');
    // An aborted match moves no rating.
    expect(await fixture.h.stores.ratings.ratingHistory(a.id)).toHaveLength(0);
  });

  it('fails its job at once when its record names a game this arena does not play', async () => {
    const { a, b } = await fixture.pair('unknown-game', 0);
    const id = await createMatch(fixture.h, a.id, b.id);
    await fixture.h.redis.hset(fixture.h.stores.keys.match(id), 'game', 'chess');
    const outcome = await jobOutcome(id);
    expect(outcome.failedReason).toMatch(/its game is not played here/);
    expect(outcome.attemptsMade).toBe(1);
    expect((await fixture.h.stores.matches.getMatch(id))?.status).toBe('aborted');
  });

  it('fails its job at once when its match has vanished', async () => {
    const id = 'match_01JZZZZZZZZZZZZZZZZZZZZZZZ';
    await fixture.h.queue.enqueue(id);
    const outcome = await jobOutcome(id);
    expect(outcome.failedReason).toMatch(/no match has this id/);
    expect(outcome.attemptsMade).toBe(1);
  });
});
