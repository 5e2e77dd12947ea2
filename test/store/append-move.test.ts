import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MoveRecord } from '../../src/store/records.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let black: string;
let white: string;
beforeAll(async () => {
  h = await createHarness();
  black = (await registerBot(h, { name: 'append-black', url: 'http://127.0.0.1:9/' })).id;
  white = (await registerBot(h, { name: 'append-white', url: 'http://127.0.0.1:9/' })).id;
});
afterAll(() => h.close());

const move = (ply: number, square: string): MoveRecord => ({
  ply,
  player: ply % 2 === 1 ? 'white' : 'black',
  square,
  flips: [],
  latencyMs: ply,
});

async function runningMatch(): Promise<string> {
  const id = await createMatch(h, black, white);
  await h.store.startMatch(id, Date.now());
  return id;
}

describe('appending moves', () => {
  it('answers each move of a batch on its own: appended, ply taken, or match not running', async () => {
    const [first, second] = [await runningMatch(), await runningMatch()];
    const queued = await createMatch(h, black, white);

    // All made in one turn of the event loop, so they are written together.
    const answers = await Promise.all([
      h.store.appendMove(first, move(1, 'd3')),
      h.store.appendMove(second, move(1, 'c4')),
      h.store.appendMove(first, move(1, 'e6')),
      h.store.appendMove(queued, move(1, 'd3')),
      h.store.appendMove(second, move(2, 'c3')),
      h.store.appendMove(first, move(3, 'f5')),
    ]);

    expect(answers).toEqual([true, true, false, false, true, false]);
    expect(await h.store.getMoves(first)).toEqual([move(1, 'd3')]);
    expect(await h.store.getMoves(second)).toEqual([move(1, 'c4'), move(2, 'c3')]);
    expect(await h.store.getMoves(queued)).toEqual([]);
    expect((await h.store.getMatch(second))?.moveCount).toBe(2);
  });

  it('refuses a ply already recorded by an earlier batch', async () => {
    const id = await runningMatch();
    expect(await h.store.appendMove(id, move(1, 'd3'))).toBe(true);
    expect(await h.store.appendMove(id, move(1, 'c4'))).toBe(false);
    expect(await h.store.appendMove(id, move(2, 'c3'))).toBe(true);
    expect((await h.store.getMoves(id)).map((m) => m.square)).toEqual(['d3', 'c3']);
  });

  it('writes a batch larger than one script call takes', async () => {
    const ids = await Promise.all(Array.from({ length: 300 }, () => runningMatch()));
    const answers = await Promise.all(ids.map((id) => h.store.appendMove(id, move(1, 'd3'))));
    expect(answers.every(Boolean)).toBe(true);
    const counts = await Promise.all(ids.map(async (id) => (await h.store.getMoves(id)).length));
    expect(new Set(counts)).toEqual(new Set([1]));
  });
});
