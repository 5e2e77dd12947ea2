import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createMatch } from '../support/arena.ts';
import { pliesPlayed } from '../support/match-events.ts';
import { matchJobDone } from '../support/queue-events.ts';
import { workerFixture } from '../support/worker-fixture.ts';
import { exited, spawnWorker } from '../support/worker-process.ts';

const fixture = workerFixture();
const pair = fixture.pair.bind(fixture);

/** The match as the API shows it; anything but 200 (a 429 above all) fails the test at once. */
async function getMatch(id: string) {
  const res = await request(fixture.h.app).get(`/v1/matches/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Waits on the store, not on the API: polls there never meet a rate limit. */
async function movesPlayed(id: string, atLeast: number): Promise<void> {
  await pliesPlayed(fixture.h, id, atLeast);
}

/** Starts a fresh worker, waits for it to finish the match, then stops it. */
async function finishOnAnotherWorker(id: string): Promise<void> {
  const worker = spawnWorker(fixture.h);
  try {
    await matchJobDone(fixture.h, fixture.events, id, 60_000);
  } finally {
    worker.kill('SIGTERM');
    await exited(worker);
  }
}

describe('a worker process', { timeout: 90_000 }, () => {
  it('plays a queued match to the end', async () => {
    const { a, b } = await pair('queued', 0);
    const id = await createMatch(fixture.h, a.id, b.id);
    const worker = spawnWorker(fixture.h);
    try {
      await matchJobDone(fixture.h, fixture.events, id, 30_000);
      const match = await getMatch(id);
      expect(match.status).toBe('finished');
      expect(match.result.reason).toBe('completed');
    } finally {
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    }
  });

  describe('killed mid-match with SIGKILL', () => {
    it('leaves the match to another worker, which finishes it exactly once', async () => {
      const { a, b } = await pair('killed', 25);
      const id = await createMatch(fixture.h, a.id, b.id, { rated: true });
      const first = spawnWorker(fixture.h);
      await movesPlayed(id, 6);
      first.kill('SIGKILL');
      await exited(first);
      const movesAtKill = (await getMatch(id)).moveCount;
      expect(movesAtKill).toBeLessThan(40);

      await finishOnAnotherWorker(id);
      const match = await getMatch(id);
      expect(match.status).toBe('finished');
      expect(match.result.reason).toBe('completed');
      expect(match.moves.map((m: { ply: number }) => m.ply)).toEqual(
        match.moves.map((_: unknown, i: number) => i + 1),
      );
      expect(match.moves.length).toBeGreaterThan(movesAtKill);
      for (const bot of [a, b]) {
        const profile = await request(fixture.h.app).get(`/v1/bots/${bot.id}`);
        expect(profile.status).toBe(200);
        expect(profile.body.games).toBe(1);
        expect(await fixture.h.stores.ratings.ratingHistory(bot.id)).toHaveLength(1);
      }
    });
  });

  describe('sent SIGTERM mid-match', () => {
    it('hands the match back after its grace period, and the next worker resumes it', async () => {
      const { a, b } = await pair('graceful', 25);
      const id = await createMatch(fixture.h, a.id, b.id);
      // The hand-back on a pool thread, as npm start runs by default.
      const first = spawnWorker(fixture.h, { SHUTDOWN_GRACE_MS: '200', WORKER_THREADS: '1' });
      await movesPlayed(id, 4);
      first.kill('SIGTERM');
      expect(await exited(first)).toBe(0);
      const handedBack = await getMatch(id);
      expect(handedBack.status).toBe('running');
      expect(await fixture.h.queue.queue.getJobState(id)).toBe('waiting');

      await finishOnAnotherWorker(id);
      const match = await getMatch(id);
      expect(match.status).toBe('finished');
      expect(match.moves.length).toBeGreaterThan(handedBack.moveCount);
      expect(match.moves.map((m: { ply: number }) => m.ply)).toEqual(
        match.moves.map((_: unknown, i: number) => i + 1),
      );
    });
  });
});
