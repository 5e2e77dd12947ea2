import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { until } from '../support/private-redis.ts';
import { exited, spawnWorker } from '../support/worker-process.ts';

let h: Harness;
const bots: LoopbackBot[] = [];
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await Promise.all(bots.map((bot) => bot.close()));
  await h.close();
});

async function pair(prefix: string, delayMs: number) {
  const [x, y] = await Promise.all([
    startLoopbackBot(playsFirstLegal(delayMs)),
    startLoopbackBot(playsFirstLegal(delayMs)),
  ]);
  bots.push(x, y);
  const a = await registerBot(h, { name: `${prefix}-a`, url: x.url });
  const b = await registerBot(h, { name: `${prefix}-b`, url: y.url });
  return { a, b };
}

const getMatch = async (id: string) => (await request(h.app).get(`/v1/matches/${id}`)).body;

/** Starts a fresh worker, waits for it to finish the match, then stops it. */
async function finishOnAnotherWorker(id: string): Promise<void> {
  const worker = spawnWorker(h);
  try {
    await until(async () => (await getMatch(id)).status === 'finished', 'the match to finish', 60_000);
  } finally {
    worker.kill('SIGTERM');
    await exited(worker);
  }
}

describe('a worker process', { timeout: 90_000 }, () => {
  it('plays a queued match to the end', async () => {
    const { a, b } = await pair('queued', 0);
    const id = await createMatch(h, a.id, b.id);
    const worker = spawnWorker(h);
    try {
      await until(async () => (await getMatch(id)).status === 'finished', 'the match to finish', 30_000);
      expect((await getMatch(id)).result.reason).toBe('completed');
    } finally {
      worker.kill('SIGTERM');
      expect(await exited(worker)).toBe(0);
    }
  });

  describe('killed mid-match with SIGKILL', () => {
    it('leaves the match to another worker, which finishes it exactly once', async () => {
      const { a, b } = await pair('killed', 25);
      const id = await createMatch(h, a.id, b.id, { rated: true });
      const first = spawnWorker(h);
      await until(async () => (await getMatch(id)).moveCount >= 6, 'some moves', 30_000);
      first.kill('SIGKILL');
      await exited(first);
      const movesAtKill = (await getMatch(id)).moveCount;
      expect(movesAtKill).toBeLessThan(40);

      await finishOnAnotherWorker(id);
      const match = await getMatch(id);
      expect(match.result.reason).toBe('completed');
      expect(match.moves.map((m: { ply: number }) => m.ply)).toEqual(
        match.moves.map((_: unknown, i: number) => i + 1),
      );
      expect(match.moves.length).toBeGreaterThan(movesAtKill);
      for (const bot of [a, b]) {
        const profile = (await request(h.app).get(`/v1/bots/${bot.id}`)).body;
        expect(profile.games).toBe(1);
        expect(await h.store.ratingHistory(bot.id)).toHaveLength(1);
      }
    });
  });

  describe('sent SIGTERM mid-match', () => {
    it('hands the match back after its grace period, and the next worker resumes it', async () => {
      const { a, b } = await pair('graceful', 25);
      const id = await createMatch(h, a.id, b.id);
      const first = spawnWorker(h, { SHUTDOWN_GRACE_MS: '200' });
      await until(async () => (await getMatch(id)).moveCount >= 4, 'some moves', 30_000);
      first.kill('SIGTERM');
      expect(await exited(first)).toBe(0);
      const handedBack = await getMatch(id);
      expect(handedBack.status).toBe('running');
      expect(await h.queue.queue.getJobState(id)).toBe('waiting');

      await finishOnAnotherWorker(id);
      const match = await getMatch(id);
      expect(match.moves.length).toBeGreaterThan(handedBack.moveCount);
      expect(match.moves.map((m: { ply: number }) => m.ply)).toEqual(
        match.moves.map((_: unknown, i: number) => i + 1),
      );
    });
  });
});
