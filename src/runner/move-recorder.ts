import { randomBytes } from 'node:crypto';
import type { LiveTurn } from '../model/live-events.ts';
import type { MoveRecord } from '../model/records.ts';
import type { MatchStore, MoveRun } from '../store/match-store.ts';

/** How many plies a run may have sent and not yet seen stored before it waits (Redis is slow or away). */
const MAX_UNCONFIRMED = 4;

// What a flush with nothing pending answers: shared, so that it makes nothing.
const STORED = Promise.resolve(true);
const REFUSED = Promise.resolve(false);
const ignore = (): void => {};

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
   * The run's two forms are made once: every ply after the first is sent as following its own.
   */
  readonly #fresh: MoveRun = { id: randomBytes(8).toString('base64url'), follows: false };
  readonly #following: MoveRun = { id: this.#fresh.id, follows: true };
  #run = this.#fresh;
  /** Writes sent and not yet settled. */
  #pending = 0;
  #refused = false;
  #failure: { readonly error: unknown } | undefined;
  /**
   * Made only when someone waits for every write (a `flush`, or a `record` past `MAX_UNCONFIRMED`)
   * while some are pending, and settled when the last one does: per ply, a write costs one `then`
   * and no promise chain.
   */
  #drained: Drained | undefined;

  // Bound once per recorder, not per write: every write settles into these.
  readonly #stored = (stored: boolean): void => {
    if (!stored) this.#refused = true;
    this.#settled();
  };
  readonly #failed = (error: unknown): void => {
    this.#failure ??= { error };
    this.#settled();
  };

  constructor(
    private readonly matches: Pick<MatchStore, 'appendMove'>,
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
    const write = this.matches.appendMove(this.matchId, move, this.#run, next);
    this.#run = this.#following;
    this.#pending++;
    write.then(this.#stored, this.#failed);
    // Waits for every write so far, as a flush: a failure must not let the runner move on (or a
    // next run start) while later plies are still on their way.
    if (this.#pending >= MAX_UNCONFIRMED) return this.flush();
    return true;
  }

  /** The run's id: a pull turn names it, so a move recorded through the turn is this run's (see `adopt`). */
  get runId(): string {
    return this.#fresh.id;
  }

  /**
   * Takes a ply recorded elsewhere in this run's name (a pull bot's, recorded by the API through
   * the turn this run opened) as this run's own: the next ply follows it.
   */
  adopt(): void {
    this.#run = this.#following;
  }

  /** Waits for every write: true when all were stored; rejects, once all have settled, when one failed. */
  flush(): Promise<boolean> {
    if (this.#pending > 0) {
      this.#drained ??= new Drained();
      return this.#drained.promise;
    }
    if (this.#failure) {
      const failed = Promise.reject(this.#failure.error);
      failed.catch(ignore); // as a pending flush's: see `#settled`
      return failed;
    }
    return this.#refused ? REFUSED : STORED;
  }

  #settled(): void {
    this.#pending--;
    if (this.#pending > 0 || !this.#drained) return;
    const drained = this.#drained;
    this.#drained = undefined;
    if (this.#failure) {
      // The failure is also thrown by the next record or flush; a waiter that went away is no crash.
      drained.promise.catch(ignore);
      drained.reject(this.#failure.error);
    } else {
      drained.resolve(!this.#refused);
    }
  }
}

/** A promise and its two settling functions (`Promise.withResolvers`, which Node 20 lacks). */
class Drained {
  readonly promise: Promise<boolean>;
  resolve!: (stored: boolean) => void;
  reject!: (error: unknown) => void;

  constructor() {
    this.promise = new Promise<boolean>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}
