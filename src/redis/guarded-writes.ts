import type { LuaCommand } from '../connections/lua-command.ts';

/** The GUARDED_WRITES script bound to a connection (key count first). */
export type GuardedWritesScript = LuaCommand;

/**
 * Builds one GUARDED_WRITES call (see lua-scripts.ts): hash fields that must still hold what was read,
 * and the writes to make, in one atomic script run, only if they do.
 *
 * @example
 * const tx = new GuardedWrites();
 * tx.guard(matchKey, 'status', 'running');
 * tx.write('HSET', matchKey, 'status', 'finished');
 * const written = await tx.run(store.scripts.guardedWrites);
 */
export class GuardedWrites {
  readonly #keys: string[] = [];
  readonly #guards: (string | number)[] = [];
  readonly #writes: (string | number)[] = [];

  /** `field` of the hash at `key` must still be `value` (`undefined`: must not exist). */
  guard(key: string, field: string, value: string | undefined): this {
    this.#guards.push('hash', this.#keyIndex(key), field, value ?? '\0');
    return this;
  }

  /** `field` of the hash at `key` must not be `value` (it may be missing). */
  guardNot(key: string, field: string, value: string): this {
    this.#guards.push('not', this.#keyIndex(key), field, value);
    return this;
  }

  /** The sorted set at `key` must hold fewer than `count` members (a cap on what it counts). */
  guardFewer(key: string, count: number): this {
    this.#guards.push('fewer', this.#keyIndex(key), count, '');
    return this;
  }

  /**
   * A Redis command on `key`, made only when every guard holds. `key` goes in the script's KEYS;
   * SPUBLISH's shard channel may stand there (it lies in the arena's slot, as the keys do).
   */
  write(command: string, key: string, ...args: (string | number)[]): this {
    this.#writes.push(2 + args.length, command, this.#keyIndex(key), ...args);
    return this;
  }

  /** Sends the call: true when written, false when a guard failed. */
  async run(script: GuardedWritesScript): Promise<boolean> {
    return (await this.attempt(script)) === null;
  }

  /** Sends the call: `null` when written, else the index (from 0) of the first guard that failed. */
  async attempt(script: GuardedWritesScript): Promise<number | null> {
    const guardCount = this.#guards.length / 4;
    const reply = await script(
      this.#keys.length,
      ...this.#keys,
      guardCount,
      ...this.#guards,
      ...this.#writes,
    );
    return reply === 1 ? null : -reply - 1;
  }

  #keyIndex(key: string): number {
    const index = this.#keys.indexOf(key);
    if (index !== -1) return index + 1;
    this.#keys.push(key);
    return this.#keys.length;
  }
}
