import { describe, expect, it } from 'vitest';
import { pooledRandomBytes, seededRandom } from './random.ts';

describe('seededRandom', () => {
  it('repeats for a seed and stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(values).size).toBeGreaterThan(990);
  });
});

describe('pooledRandomBytes', () => {
  it('hands out fresh bytes of the asked size across pool refills', () => {
    const random = pooledRandomBytes(64);
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const bytes = random(12);
      expect(bytes).toHaveLength(12);
      seen.add(Buffer.from(bytes).toString('hex'));
    }
    expect(seen.size).toBe(100);
    expect(random(200)).toHaveLength(200);
  });
});
