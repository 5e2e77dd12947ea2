import type { MoveRecord } from '../store/records.ts';
import type { ArenaStore } from '../store/store.ts';

/**
 * Records a match's plies one after the other without waiting for each write before asking for the
 * next move: the store round trip of ply N overlaps the bot's think time for ply N+1. A ply is only
 * written once the one before it is stored, and `record`/`flush` report false as soon as a write is
 * refused (another worker recorded that ply first), so the runner goes back to the stored truth.
 */
export class MoveRecorder {
  private pending: Promise<boolean> = Promise.resolve(true);

  constructor(
    private readonly store: ArenaStore,
    private readonly matchId: string,
  ) {}

  /** Waits for the previous ply to be stored, then starts storing `move`. */
  async record(move: MoveRecord): Promise<boolean> {
    if (!(await this.pending)) return false;
    this.pending = this.store.appendMove(this.matchId, move);
    // A failed write is seen by the next record or flush; keep it from being unhandled meanwhile.
    this.pending.catch(() => {});
    return true;
  }

  /** Waits for every ply to be stored. */
  flush(): Promise<boolean> {
    return this.pending;
  }
}
