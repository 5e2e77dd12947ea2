import { describe, expect, it } from 'vitest';
import { TurnPacer } from './pacer.ts';

/** Turns that each take 1 ms of a fake clock, started through `pacer`; marks what ran in order. */
async function turns(count: number, sliceMs: number) {
  let clock = 0;
  const pacer = new TurnPacer(sliceMs, () => clock);
  const marks: string[] = [];
  const done = Array.from({ length: count }, async (_, index) => {
    await pacer.turn();
    marks.push(`turn ${index}`);
    clock += 1;
  });
  // Another macrotask, queued after the pacer's first slice.
  setImmediate(() => marks.push('other'));
  marks.push('caller');
  await Promise.all(done);
  return marks;
}

const turnMarks = (count: number) => Array.from({ length: count }, (_, index) => `turn ${index}`);

describe('the turn pacer', () => {
  it('never goes on in the caller’s own callback', async () => {
    const marks = await turns(1, 5);
    expect(marks[0]).toBe('caller');
  });

  it('lets turns go on in order, and other callbacks run between its slices', async () => {
    const marks = await turns(12, 5);
    expect(marks.filter((mark) => mark.startsWith('turn'))).toEqual(turnMarks(12));
    expect(marks.indexOf('other')).toBe(1 + 5);
  });

  it('lets every waiting turn go on in one slice while the slice lasts', async () => {
    const marks = await turns(12, 100);
    // All twelve were done before the other callback's turn came.
    expect(marks).toEqual(['caller', ...turnMarks(12)]);
  });
});
