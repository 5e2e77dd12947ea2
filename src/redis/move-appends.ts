import DataLoader from 'dataloader';
import { luaCommand } from '../connections/lua-command.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import type { LiveTurn } from '../model/live-events.ts';
import type { MoveRecord } from '../model/records.ts';
import type { MoveRun } from '../store/match-store.ts';
import type { StoreKeys } from './keys.ts';
import { APPEND_MOVES } from './lua-scripts.ts';
import { encodeMoveEvent } from './match-event-codec.ts';
import { encodeMove } from './move-codec.ts';

/** One ply to append, with the turn after it for spectators. */
export interface AppendedMove {
  readonly id: string;
  readonly move: MoveRecord;
  readonly run: MoveRun;
  /** The turn after the move, told to spectators with it. */
  readonly next: LiveTurn | undefined;
}

/**
 * The moves appended by every match this process plays, written together, one script call at a
 * time (a group commit): a batch goes once the one before it is answered and the event loop has
 * run its pending I/O callbacks, so under load each write carries many moves. Writes and replies
 * per move were most of the arena's own cost per move. Each move still gets its own answer (1:
 * stored, 0: refused, see APPEND_MOVES); a batch that fails (Redis errors) fails every move in it.
 */
export class MoveAppends {
  readonly #loader: DataLoader<AppendedMove, number>;
  #inFlight: Promise<unknown> = Promise.resolve();

  constructor(redis: RedisClient, keys: StoreKeys) {
    const appendMoves = luaCommand<number[]>(redis, APPEND_MOVES, undefined);
    this.#loader = new DataLoader<AppendedMove, number>(
      (appends) => {
        // Keys first, then five arguments per move and the appends channel, in one array: this runs
        // for every move.
        const count = appends.length;
        const args: (string | number | Buffer)[] = new Array(2 + count * 8);
        args[0] = count * 3;
        for (let i = 0; i < count; i++) {
          const { id, move, run, next } = appends[i]!;
          args[1 + i * 3] = keys.moves(id);
          args[2 + i * 3] = keys.match(id);
          args[3 + i * 3] = keys.matchEvents(id);
          const a = 1 + count * 3 + i * 5;
          args[a] = move.ply;
          args[a + 1] = encodeMove(move);
          args[a + 2] = run.id;
          args[a + 3] = run.follows ? '1' : '0';
          args[a + 4] = next === undefined ? '' : encodeMoveEvent(move, next);
        }
        args[1 + count * 8] = keys.streamAppends;
        const written = appendMoves(...args);
        this.#inFlight = written.catch(() => {});
        return written;
      },
      // No batch size cap: a run waits once it has 4 plies unconfirmed, so a batch holds at most 4
      // per match this process plays, and a new batch only opens once the last one was sent.
      { cache: false, batchScheduleFn: (flush) => void this.#inFlight.then(() => setImmediate(flush)) },
    );
  }

  append(move: AppendedMove): Promise<number> {
    return this.#loader.load(move);
  }

  /** Resolves once the moves already sent are answered. */
  async flushed(): Promise<void> {
    await this.#inFlight;
  }
}
