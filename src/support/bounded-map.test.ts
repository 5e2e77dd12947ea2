import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.ts';

describe('BoundedMap', () => {
  it('forgets the oldest key set once past its limit', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map.entries()]).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('keeps a key set again in its place; deleted first, it becomes the newest', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
    map.delete('b');
    map.set('d', 4);
    map.delete('c');
    map.set('c', 5).set('e', 6);
    expect([...map.keys()]).toEqual(['c', 'e']);
  });
});
