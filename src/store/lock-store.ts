/** Locks one process at a time holds (the matchmaking round, the sweep of waiting challenges). */
export interface LockStore {
  /**
   * Takes the lock `name` for at most `ttlMs` if nobody holds it: answers its release, or null when
   * another holder has it. The lock frees itself after `ttlMs` if its holder dies.
   */
  tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | null>;
}

/** `up` while the store's connection is ready; `down` while it is lost and reconnecting. */
export type StoreHealth = 'up' | 'down';

/** Whether the store answers: readiness, and telling a store outage (503) from a bug (500). */
export interface HealthCheck {
  /** Resolves when the store answers a round trip now; rejects when it does not. */
  ping(): Promise<void>;
  /** How the store's connection stands as last seen, without a round trip. */
  health(): StoreHealth;
  /**
   * Whether `error` says the store could not be reached: a command lost with its connection, even
   * once the connection is back (a cluster's slot moved to a promoted replica meanwhile).
   */
  isOutage(error: unknown): boolean;
}
