/**
 * Memoizes a pure function of a string, keeping at most `limit` answers. A worker calls the same few
 * bots thousands of times a second, so their answers are almost always there; when the map is full
 * it is cleared rather than evicted entry by entry (no LRU bookkeeping on the hot path), which keeps
 * memory bounded even if some caller feeds it endless distinct keys.
 *
 * @example
 * const keyOf = boundedMemo(1000, (secret) => Buffer.from(secret, 'base64'));
 * keyOf(secret); // decoded once, then served from the map
 */
export function boundedMemo<V>(limit: number, compute: (key: string) => V): (key: string) => V {
  const answers = new Map<string, V>();
  return (key) => {
    const known = answers.get(key);
    if (known !== undefined) return known;
    const value = compute(key);
    if (answers.size >= limit) answers.clear();
    answers.set(key, value);
    return value;
  };
}
