import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../random.ts';
import { bradleyTerryFromColumns, type TallyColumns } from '../rating/bradley-terry.ts';
import { fitInThread } from './fit-thread.ts';

/** `bots` bots, each meeting its 10 nearest neighbours in rank `games` times, with random scores. */
function ladder(bots: number, games: number, seed = 5): TallyColumns {
  const random = seededRandom(seed);
  const a: number[] = [];
  const b: number[] = [];
  const scoreA: number[] = [];
  for (let i = 0; i < bots; i++) {
    for (let d = 1; d <= 10 && i + d < bots; d++) {
      a.push(i);
      b.push(i + d);
      scoreA.push(Math.round(random() * games * 2) / 2);
    }
  }
  return {
    ids: Array.from({ length: bots }, (_, i) => `bot_${i}`),
    a: Int32Array.from(a),
    b: Int32Array.from(b),
    games: new Float64Array(a.length).fill(games),
    scoreA: Float64Array.from(scoreA),
  };
}

const copy = (c: TallyColumns): TallyColumns => ({
  ids: c.ids,
  a: c.a.slice(),
  b: c.b.slice(),
  games: c.games.slice(),
  scoreA: c.scoreA.slice(),
});

describe('fitInThread', () => {
  it('fits in another thread, with the same answer as a fit on this one', async () => {
    const tallies = ladder(60, 8);
    const here = bradleyTerryFromColumns(copy(tallies), { anchorMean: 1500 });
    const { fit, threadId: fittedOn } = await fitInThread(tallies, { anchorMean: 1500 });
    expect(fittedOn).not.toBe(threadId);
    expect(fit).toEqual(here);
  });

  it("leaves this thread's timers running while a big fit runs", async () => {
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
      await fitInThread(ladder(1_500, 20), { anchorMean: 1500 });
    } finally {
      clearInterval(timer);
    }
    const took = performance.now() - started;
    // A generous bound (a shared machine): the fit took seconds, no timer waited for it.
    expect(took).toBeGreaterThan(200);
    expect(ticks).toBeGreaterThan(10);
    expect(longestGap).toBeLessThan(took / 2);
  });

  it("rejects with the fit's own error", async () => {
    const perfect: TallyColumns = {
      ids: ['bot_a', 'bot_b'],
      a: Int32Array.of(0),
      b: Int32Array.of(1),
      games: Float64Array.of(3),
      scoreA: Float64Array.of(3),
    };
    await expect(fitInThread(perfect, { priorDraws: 0 })).rejects.toThrow(/no finite maximum-likelihood/);
  });

  it('ends the thread and rejects when aborted', async () => {
    const controller = new AbortController();
    const fitting = fitInThread(ladder(1_500, 20), {}, controller.signal);
    controller.abort(new Error('closing'));
    await expect(fitting).rejects.toThrow('closing');
  });
});
