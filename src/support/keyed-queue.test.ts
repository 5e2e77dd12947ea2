import { describe, expect, it } from 'vitest';
import { KeyedQueue } from './keyed-queue.ts';

/** A task that records when it starts and ends, and ends when told. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open,
    task: async () => {
      log.push(`${name} start`);
      await opened;
      log.push(`${name} end`);
      return name;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedQueue', () => {
  it('runs tasks that share a key one after another, and tasks that share none side by side', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const ab = gate(log, 'ab');
    const bc = gate(log, 'bc');
    const d = gate(log, 'd');
    const first = queue.run(['a', 'b'], ab.task);
    const second = queue.run(['b', 'c'], bc.task);
    const third = queue.run(['d'], d.task);
    await tick();
    expect(log).toEqual(['ab start', 'd start']);
    bc.open();
    d.open();
    await tick();
    expect(log).toEqual(['ab start', 'd start', 'd end']);
    ab.open();
    expect(await Promise.all([first, second, third])).toEqual(['ab', 'bc', 'd']);
    expect(log).toEqual(['ab start', 'd start', 'd end', 'ab end', 'bc start', 'bc end']);
    await tick();
    expect(queue.busyKeys).toBe(0);
  });

  it('gives a failure to its caller and goes on with the next task', async () => {
    const queue = new KeyedQueue();
    const failed = queue.run(['a'], async () => {
      throw new Error('no');
    });
    const next = queue.run(['a'], async () => 'ran');
    await expect(failed).rejects.toThrow('no');
    expect(await next).toBe('ran');
  });

  it('waits for every key a task holds, whichever task holds it', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const a = gate(log, 'a');
    const b = gate(log, 'b');
    const ab = gate(log, 'ab');
    void queue.run(['a'], a.task);
    void queue.run(['b'], b.task);
    const both = queue.run(['a', 'b'], ab.task);
    ab.open();
    a.open();
    await tick();
    expect(log).not.toContain('ab start');
    b.open();
    await both;
    expect(log.at(-2)).toBe('ab start');
  });
});
