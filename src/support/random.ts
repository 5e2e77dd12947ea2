import { createHash, randomBytes } from 'node:crypto';

/**
 * A small seeded generator (mulberry32): reproducible randomness for tests, simulations and bots.
 * Pure code takes a `() => number` and never calls `Math.random` itself.
 *
 * @example
 * const random = seededRandom(1);
 * random(); // always the same first number for seed 1
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Cryptographic random bytes, one `randomBytes` call each: what the composition roots hand the
 * services that make ids, tokens and secrets (the pooled form below is for the bot client's hot path).
 */
export const secureRandomBytes = (size: number): Uint8Array => randomBytes(size);

/**
 * Cryptographic random bytes drawn from a pre-filled pool: one `randomBytes` call per 4 kB instead
 * of one per request, which matters on the hot path of every bot call.
 */
export function pooledRandomBytes(poolSize = 4096): (size: number) => Uint8Array {
  let pool = new Uint8Array(0);
  let offset = 0;
  return (size) => {
    if (offset + size > pool.length) {
      pool = randomBytes(Math.max(poolSize, size));
      offset = 0;
    }
    offset += size;
    return pool.subarray(offset - size, offset);
  };
}

/**
 * Bytes that depend on `seed` alone (SHA-256 of it, repeated as needed): an id made with them names
 * one thing however many processes make it, as a scheduled event's does.
 */
export function digestBytes(seed: string): (size: number) => Uint8Array {
  return (size) => {
    const bytes = new Uint8Array(size);
    for (let i = 0; i * 32 < size; i++) {
      bytes.set(
        createHash('sha256')
          .update(`${seed}#${i}`)
          .digest()
          .subarray(0, size - i * 32),
        i * 32,
      );
    }
    return bytes;
  };
}
