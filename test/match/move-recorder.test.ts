import { describe, expect, it } from 'vitest';
import type { MoveRecord } from '../../src/model/records.ts';
import { MoveRecorder } from '../../src/runner/move-recorder.ts';
import type { MatchStore, MoveRun } from '../../src/store/match-store.ts';

/** A store whose appends wait until the test answers them, in order. */
function heldStore() {
  const writes: { ply: number; run: MoveRun; answer: (stored: boolean) => void; fail: (e: Error) => void }[] =
    [];
  const matches: Pick<MatchStore, 'appendMove'> = {
    appendMove: (_id: string, move: MoveRecord, run: MoveRun) =>
      new Promise<boolean>((answer, fail) => writes.push({ ply: move.ply, run, answer, fail })),
  };
  return { matches, writes };
}

const move = (ply: number): MoveRecord => ({ ply, player: 'white', square: 'd3', flips: [], latencyMs: 0 });

/** Whether a promise has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('MoveRecorder', () => {
  it('sends each ply at once, the first as a fresh start and the rest as following its own', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    expect(await recorder.record(move(1))).toBe(true);
    expect(await recorder.record(move(2))).toBe(true);
    expect(writes.map((w) => [w.ply, w.run.follows])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(new Set(writes.map((w) => w.run.id)).size).toBe(1);
    expect(await settled(recorder.flush())).toBe(false);
    for (const w of writes) w.answer(true);
    expect(await recorder.flush()).toBe(true);
  });

  it('waits once four plies are unconfirmed, and goes on when the store answers', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    for (const ply of [1, 2, 3]) expect(await recorder.record(move(ply))).toBe(true);
    const fourth = recorder.record(move(4));
    expect(await settled(fourth)).toBe(false);
    for (const w of writes) w.answer(true);
    expect(await fourth).toBe(true);
  });

  it('reports a refused ply and sends nothing after it', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    await recorder.record(move(1));
    writes[0]!.answer(false);
    expect(await recorder.flush()).toBe(false);
    expect(await recorder.record(move(2))).toBe(false);
    expect(writes).toHaveLength(1);
  });

  it('throws the error of a failed write on the next ply and on flush', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    await recorder.record(move(1));
    writes[0]!.fail(new Error('redis is gone'));
    await expect(recorder.flush()).rejects.toThrow('redis is gone');
    await expect(recorder.record(move(2))).rejects.toThrow('redis is gone');
  });

  it('rejects a flush only once every write has settled', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    await recorder.record(move(1));
    await recorder.record(move(2));
    writes[0]!.fail(new Error('redis is gone'));
    const flushed = recorder.flush();
    expect(await settled(flushed)).toBe(false);
    writes[1]!.answer(true);
    await expect(flushed).rejects.toThrow('redis is gone');
  });

  it('reports a refusal from flush only once every write has settled', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    await recorder.record(move(1));
    await recorder.record(move(2));
    writes[0]!.answer(false);
    const flushed = recorder.flush();
    expect(await settled(flushed)).toBe(false);
    writes[1]!.answer(true);
    expect(await flushed).toBe(false);
  });

  it('throws a failure that came after a refusal, from flush and from the next ply', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    await recorder.record(move(1));
    await recorder.record(move(2));
    writes[0]!.answer(false);
    writes[1]!.fail(new Error('redis is gone'));
    await expect(recorder.flush()).rejects.toThrow('redis is gone');
    await expect(recorder.record(move(3))).rejects.toThrow('redis is gone');
    expect(writes).toHaveLength(2);
  });

  it('answers two flushes made while writes are pending alike', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    await recorder.record(move(1));
    await recorder.record(move(2));
    const flushes = [recorder.flush(), recorder.flush()];
    writes[0]!.answer(true);
    for (const flushed of flushes) expect(await settled(flushed)).toBe(false);
    writes[1]!.answer(true);
    expect(await Promise.all(flushes)).toEqual([true, true]);
  });

  it('goes on after a flush, sending the next ply as following its own and waiting for it anew', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    await recorder.record(move(1));
    writes[0]!.answer(true);
    expect(await recorder.flush()).toBe(true);
    expect(await recorder.record(move(2))).toBe(true);
    expect(writes[1]!.run).toEqual({ id: writes[0]!.run.id, follows: true });
    const flushed = recorder.flush();
    expect(await settled(flushed)).toBe(false);
    writes[1]!.answer(true);
    expect(await flushed).toBe(true);
  });

  it('makes a ply that waited for the store report a refusal, or throw a failure once all have settled', async () => {
    for (const outcome of ['refused', 'failed'] as const) {
      const { matches, writes } = heldStore();
      const recorder = new MoveRecorder(matches, 'm');
      for (const ply of [1, 2, 3]) await recorder.record(move(ply));
      const fourth = recorder.record(move(4));
      if (outcome === 'refused') writes[1]!.answer(false);
      else writes[1]!.fail(new Error('redis is gone'));
      for (const w of [writes[0]!, writes[2]!]) w.answer(true);
      expect(await settled(fourth)).toBe(false);
      writes[3]!.answer(true);
      if (outcome === 'refused') expect(await fourth).toBe(false);
      else await expect(fourth).rejects.toThrow('redis is gone');
    }
  });

  it('keeps a failure from a flush nobody awaited for the next ply, without an unhandled rejection', async () => {
    const { matches, writes } = heldStore();
    const recorder = new MoveRecorder(matches, 'm');
    await recorder.record(move(1));
    void recorder.flush();
    writes[0]!.fail(new Error('redis is gone'));
    void recorder.flush();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(recorder.record(move(2))).rejects.toThrow('redis is gone');
  });
});
