import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type PoolThreads, startPoolThreads } from '../../src/pool/pool-threads.ts';
import { createMatch } from '../support/arena.ts';
import { pliesPlayed } from '../support/match-events.ts';
import { matchJobDone } from '../support/queue-events.ts';
import { workerFixture } from '../support/worker-fixture.ts';

const fixture = workerFixture();
const pair = fixture.pair.bind(fixture);

/** The harness' configuration with the workers on `threads` threads sharing `concurrency`. */
function threaded(threads: number, concurrency: number, lockMs = 30_000) {
  const { config } = fixture.h;
  return { ...config, workers: { ...config.workers, threads, concurrency, lockDurationMs: lockMs } };
}

describe('match pool threads', { timeout: 60_000 }, () => {
  it('play matches on as many threads, each with its own event loop', async () => {
    const { a, b } = await pair('threads', 5);
    const ids = await Promise.all(Array.from({ length: 4 }, () => createMatch(fixture.h, a.id, b.id)));
    const pool = await startPoolThreads(threaded(2, 4), pino({ level: 'silent' }));
    try {
      await Promise.all(ids.map((id) => matchJobDone(fixture.h, fixture.events, id, 30_000)));
      for (const id of ids) {
        const match = await fixture.h.stores.matches.getMatch(id);
        expect(match?.status).toBe('finished');
        expect(match?.result?.reason).toBe('completed');
      }
      const delays = await pool.loopDelays();
      expect(delays).toHaveLength(2);
      expect(new Set(delays.map((delay) => delay.threadId)).size).toBe(2);
      for (const delay of delays) {
        expect(delay.p99Ms).toBeGreaterThan(0);
        // A share of the thread's window where the system tells (Linux schedstat), else null.
        if (delay.cpuWaitShare !== null) expect(delay.cpuWaitShare).toBeGreaterThanOrEqual(0);
        if (delay.cpuWaitShare !== null) expect(delay.cpuWaitShare).toBeLessThanOrEqual(1);
      }
    } finally {
      await pool.close();
    }
  });

  it('never start more threads than matches they may play, each with its young generation', async () => {
    const pool = await startPoolThreads(threaded(3, 1), pino({ level: 'silent' }));
    try {
      expect(pool.threads).toHaveLength(1);
      // Each runs with the young generation the configuration gives it.
      expect(pool.threads[0]?.resourceLimits?.maxYoungGenerationSizeMb).toBe(
        fixture.h.config.workers.threadYoungGenerationMb,
      );
    } finally {
      await pool.close();
    }
  });

  it('replace a thread that ends, and the match it played is finished exactly once', async () => {
    const { a, b } = await pair('restart', 30);
    const id = await createMatch(fixture.h, a.id, b.id, { rated: true });
    const pool: PoolThreads = await startPoolThreads(threaded(1, 1, 2000), pino({ level: 'silent' }));
    try {
      await pliesPlayed(fixture.h, id, 6);
      const first = pool.threads[0];
      await first?.terminate();
      // Asking an ended thread fails at once rather than waiting for an answer that cannot come.
      await expect(pool.loopDelays()).rejects.toThrow(/ended/);
      // Finished by the thread that replaced it.
      await matchJobDone(fixture.h, fixture.events, id, 45_000);
      expect(pool.threads[0]).not.toBe(first);
      const match = await fixture.h.stores.matches.getMatch(id);
      expect(match?.status).toBe('finished');
      expect(match?.result?.reason).toBe('completed');
      const moves = await fixture.h.stores.matches.getMoves(id);
      expect(moves.map((move) => move.ply)).toEqual(moves.map((_, index) => index + 1));
      for (const bot of [a, b]) expect(await fixture.h.stores.ratings.ratingHistory(bot.id)).toHaveLength(1);
    } finally {
      await pool.close();
    }
  });
});
