/** Guests: people at /play, retired once idle (see arena/guests.ts). */
export interface GuestStore {
  /** Ids of active guests last seen at or before `cutoff`, longest idle first. */
  guestsIdleSince(cutoff: number, limit: number): Promise<string[]>;
  /** Records that an active guest was seen at `at` (never moves its time back). */
  touchGuest(id: string, at: number): Promise<void>;
  /**
   * Retires a guest (see `BotStore.retireBot`) and drops its event stream, which only its revoked
   * token could read: a guest's turns would otherwise stay in memory for good. Idempotent.
   */
  retireGuest(id: string): Promise<void>;
}
