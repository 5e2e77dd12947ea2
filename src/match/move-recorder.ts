import { randomBytes } from 'node:crypto';
import type { LiveTurn } from '../store/match-events.ts';
import type { MoveRecord } from '../store/records.ts';
import type { ArenaStore } from '../store/store.ts';

/** How many plies a run may have sent and not yet seen stored before it waits (Redis is slow or away). */
const MAX_UNCONFIRMED = 4;

/**
 * Records a match's plies for one run (one worker's pass over the match) without waiting for the
 * store: each ply is sent at once and its write overlaps the bot's think time for the next one.
 * The store refuses a ply unless the ply before it is this run's own, so a ply sent before the
 * one before it was confirmed can never land on another worker's record. `record` reports false
 * once a write was refused, and `flush` waits for every write, so the runner goes back to the
 * stored truth. While the store lags, the run waits rather than playing on far ahead of it.
 */
export class MoveRecorder {
  /**
   * Names this run in the match's `moveWriter` field, kept with every finished match: 64 random
   * bits (11 characters) are plenty to tell a match's few runs apart, at a third of a UUID's size.
   */
  readonly #run = randomBytes(8).toString('base64url');
  #follows = false;
  #refused = false;
  #failure: { readonly error: unknown } | undefined;
  #written: Promise<boolean> = Promise.resolve(true);
  #unconfirmed = 0;

  constructor(
    private readonly store: ArenaStore,
    private readonly matchId: string,
  ) {}

  /**
   * Starts storing `move` (and telling spectators of it and of `next`, the turn after it); waits
   * only when too many plies are still unconfirmed. False when an earlier write was refused (the
   * move is not sent, or the wait saw a refusal); throws the error of an earlier write that failed.
   */
  async record(move: MoveRecord, next?: LiveTurn): Promise<boolean> {
    if (this.#failure) throw this.#failure.error;
    if (this.#refused) return false;
    const run = { id: this.#run, follows: this.#follows };
    const write = this.store.appendMove(this.matchId, move, run, next);
    this.#follows = true;
    this.#unconfirmed++;
    write.then(
      (stored) => {
        this.#unconfirmed--;
        if (!stored) this.#refused = true;
      },
      (error: unknown) => {
        this.#unconfirmed--;
        this.#failure ??= { error };
      },
    );
    // Settles only when every write so far has: a failure must not let the runner move on (or a
    // next run start) while later plies are still on their way.
    this.#written = Promise.allSettled([this.#written, write]).then(([before, now]) => {
      if (before.status === 'rejected') throw before.reason;
      if (now.status === 'rejected') throw now.reason;
      return before.value && now.value;
    });
    // A failed write is seen by the next record or flush; keep it from being unhandled meanwhile.
    this.#written.catch(() => {});
    if (this.#unconfirmed >= MAX_UNCONFIRMED) return this.#written;
    return true;
  }

  /** Waits for every write: true when all were stored; rejects, once all have settled, when one failed. */
  flush(): Promise<boolean> {
    return this.#written;
  }
}
