/**
 * A Map that keeps at most `limit` entries: setting a key past the limit forgets the oldest key
 * set. Setting a key again does not make it newer; delete it first for that (least recently used).
 *
 * @example
 * const seen = new BoundedMap<string, MatchRecord>(10_000);
 * seen.set(match.id, match); // the 10,001st drops the first
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #limit: number;

  constructor(limit: number) {
    super();
    this.#limit = limit;
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    if (this.size > this.#limit) this.delete(this.keys().next().value as K);
    return this;
  }
}
