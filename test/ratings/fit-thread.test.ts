import { randomUUID } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/connections/redis-connection.ts';
import { createRedis } from '../../src/connections/redis-connection.ts';
import { recomputeInThread } from '../../src/matchmaking/fit-thread.ts';
import type { Strength } from '../../src/model/records.ts';
import { bradleyTerryFromColumns } from '../../src/rating/bradley-terry.ts';
import { deleteKeysUnder } from '../../src/redis/maintenance.ts';
import { RedisStrengthStore } from '../../src/redis/redis-strength-store.ts';
import { seededRandom } from '../../src/support/random.ts';
import { REDIS_URL } from '../support/harness.ts';

let redis: RedisClient;
const prefixes: string[] = [];
beforeAll(async () => {
  redis = createRedis(REDIS_URL, 'worker');
  await redis.connect();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

/** A fresh `test-<uuid>` key prefix, deleted after the file. */
function freshPrefix(): string {
  const prefix = `test-${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
}

/**
 * Writes `games` results for each of `bots` bots against each of its 10 nearest neighbours in rank
 * into the tallies hash as the finish script does (`<black> <white> <score>` → count), and gives
 * each bot an Elo rating. Random outcomes, so every record is mixed.
 */
async function seedLadder(prefix: string, bots: number, games: number, seed = 5): Promise<void> {
  const random = seededRandom(seed);
  const fields = new Map<string, number>();
  for (let i = 0; i < bots; i++) {
    for (let d = 1; d <= 10 && i + d < bots; d++) {
      for (let g = 0; g < games; g++) {
        const u = random();
        const field = `bot_${i} bot_${i + d} ${u < 0.45 ? 1 : u < 0.55 ? 0.5 : 0}`;
        fields.set(field, (fields.get(field) ?? 0) + 1);
      }
    }
  }
  const entries = [...fields];
  for (let start = 0; start < entries.length; start += 10_000) {
    await redis.hset(`${prefix}:rated-tallies`, Object.fromEntries(entries.slice(start, start + 10_000)));
  }
  const pipeline = redis.pipeline();
  for (let i = 0; i < bots; i++) pipeline.hset(`${prefix}:bot:bot_${i}`, 'rating', 1400 + (i % 200));
  await pipeline.exec();
}

/** The saved strengths, by bot id. */
async function savedStrengths(prefix: string): Promise<Map<string, Strength>> {
  const hash = await redis.hgetall(`${prefix}:strength`);
  return new Map(Object.entries(hash).map(([id, json]) => [id, JSON.parse(json) as Strength]));
}

/** The fit of the stored tallies on this thread, from scratch, anchored as the scheduler anchors it. */
async function fitHere(prefix: string, bots: number) {
  const store = await RedisStrengthStore.open(REDIS_URL, prefix);
  try {
    const anchorMean =
      Array.from({ length: bots }, (_, i) => 1400 + (i % 200)).reduce((s, r) => s + r) / bots;
    return bradleyTerryFromColumns(await store.ratedTallies(), { anchorMean });
  } finally {
    await store.close();
  }
}

describe('recomputeInThread', () => {
  it('reads, fits and saves in another thread: the strengths a fit on this thread gives', async () => {
    const prefix = freshPrefix();
    await seedLadder(prefix, 60, 8);
    const summary = await recomputeInThread({ redis: { target: REDIS_URL, prefix }, computedAt: 1234 });
    expect(summary.threadId).not.toBe(threadId);
    const here = await fitHere(prefix, 60);
    expect(summary).toMatchObject({ rated: 60, iterations: here.iterations, converged: true, started: 0 });
    const saved = await savedStrengths(prefix);
    expect(saved.size).toBe(60);
    for (const r of here.ratings) {
      const s = saved.get(r.id)!;
      expect(s.rating).toBeCloseTo(r.rating, 9);
      expect(s.lower).toBeCloseTo(r.lower, 9);
      expect(s.upper).toBeCloseTo(r.upper, 9);
    }
    expect(await redis.get(`${prefix}:strength:computed-at`)).toBe('1234');
  });

  it('starts the next fit from the saved strengths, and ends where a fit from scratch does', async () => {
    const prefix = freshPrefix();
    await seedLadder(prefix, 300, 6);
    const first = await recomputeInThread({ redis: { target: REDIS_URL, prefix }, computedAt: 1 });
    expect(first).toMatchObject({ rated: 300, converged: true, started: 0 });
    // Nothing new: it starts at the answer and stops there.
    const idle = await recomputeInThread({ redis: { target: REDIS_URL, prefix }, computedAt: 2 });
    expect(idle).toMatchObject({ rated: 300, converged: true, started: 300 });
    expect(idle.iterations).toBeLessThanOrEqual(5);
    // More results, among the bots already rated and with a newcomer (which starts at the mean).
    await redis.hincrby(`${prefix}:rated-tallies`, 'bot_7 bot_12 1', 3);
    await redis.hincrby(`${prefix}:rated-tallies`, 'bot_250 bot_3 0.5', 2);
    await redis.hincrby(`${prefix}:rated-tallies`, 'bot_300 bot_299 0', 4);
    await redis.hset(`${prefix}:bot:bot_300`, 'rating', 1500); // as seedLadder would rate it
    const next = await recomputeInThread({ redis: { target: REDIS_URL, prefix }, computedAt: 3 });
    expect(next).toMatchObject({ rated: 301, converged: true, started: 300 });
    const scratch = await fitHere(prefix, 301);
    const saved = await savedStrengths(prefix);
    expect(saved.size).toBe(301);
    for (const r of scratch.ratings) {
      expect(Math.abs(saved.get(r.id)!.rating - r.rating)).toBeLessThan(0.001);
      expect(Math.abs(saved.get(r.id)!.upper - r.upper)).toBeLessThan(0.001);
    }
  });

  it("leaves this thread's timers running while a big fit runs", async () => {
    const prefix = freshPrefix();
    await seedLadder(prefix, 1_500, 20);
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    try {
      await recomputeInThread({ redis: { target: REDIS_URL, prefix }, computedAt: 1 });
    } finally {
      clearInterval(timer);
    }
    const took = performance.now() - started;
    // A generous bound (a shared machine): reading and fitting took seconds, no timer waited for it.
    expect(took).toBeGreaterThan(200);
    expect(ticks).toBeGreaterThan(10);
    expect(longestGap).toBeLessThan(took / 2);
  });

  it("rejects with the fit's own error and saves nothing", async () => {
    const prefix = freshPrefix();
    await redis.hset(`${prefix}:rated-tallies`, 'bot_a bot_b 1', 3);
    await expect(
      recomputeInThread({ redis: { target: REDIS_URL, prefix }, computedAt: 1, options: { priorDraws: 0 } }),
    ).rejects.toThrow(RangeError);
    await expect(
      recomputeInThread({ redis: { target: REDIS_URL, prefix }, computedAt: 1, options: { priorDraws: 0 } }),
    ).rejects.toThrow(/no finite maximum-likelihood/);
    expect(await redis.exists(`${prefix}:strength`, `${prefix}:strength:computed-at`)).toBe(0);
  });

  it('ends the thread and rejects when aborted', async () => {
    const prefix = freshPrefix();
    await seedLadder(prefix, 1_500, 20);
    const controller = new AbortController();
    const fitting = recomputeInThread(
      { redis: { target: REDIS_URL, prefix }, computedAt: 1 },
      controller.signal,
    );
    controller.abort(new Error('closing'));
    await expect(fitting).rejects.toThrow('closing');
  });
});
