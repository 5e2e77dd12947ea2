const settled = (): void => {};

/**
 * Runs tasks one after another per key, a task holding several keys at once: it starts once the
 * last task queued before it on each of its keys has settled. Two tasks that share no key run side
 * by side. A task's failure is its caller's; the queue goes on.
 *
 * @example
 * const finishes = new KeyedQueue();
 * await finishes.run([blackId, whiteId], () => finishMatch(matchId));
 */
export class KeyedQueue {
  /** Per key, the last task queued on it, settled either way; removed once nothing follows it. */
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
    const before: Promise<void>[] = [];
    for (const key of keys) {
      const tail = this.#tails.get(key);
      if (tail !== undefined) before.push(tail);
    }
    const result = before.length === 0 ? task() : Promise.all(before).then(task);
    const tail = result.then(settled, settled);
    for (const key of keys) this.#tails.set(key, tail);
    void tail.then(() => {
      for (const key of keys) if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** How many keys have a task queued or running. */
  get busyKeys(): number {
    return this.#tails.size;
  }
}
