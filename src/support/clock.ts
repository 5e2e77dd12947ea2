/** The arena's only source of time; tests inject a fixed or stepping clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The arena's only source of randomness; tests inject a seeded one. */
export type RandomBytes = (size: number) => Uint8Array;
