import type { components, MatchState } from '../contract/index.ts';
import { NotFoundError } from '../model/errors.ts';
import { publicResult } from '../model/faults.ts';
import { type LiveFinish, type LiveTurn, type MatchEvent, turnOf } from '../model/live-events.ts';
import { abortedResult, type MatchRecord, type MoveRecord, matchEnded } from '../model/records.ts';
import type { MatchEventStore } from '../store/match-event-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock } from '../support/clock.ts';
import { assertUnsealed } from './league-weeks.ts';
import type { PullService, StreamItem } from './pull.ts';

type Schemas = components['schemas'];

/**
 * How many of a match's newest events a new spectator looks through for the one its state ends
 * at; a spectator whose state is older than all of them (moves came very fast) reads the match's
 * whole stream once and skips what its state already shows.
 */
const RECENT_EVENTS = 16;

/** Where a spectator's stream starts, fixed before the client sees the stream open. */
export interface SpectatorStart {
  readonly matchId: string;
  /** The state sent first on a fresh connection; null on a resume (`Last-Event-ID`). */
  readonly state: MatchState | null;
  /** The stream id the events start after. */
  readonly after: string;
  /** The ply the state is at: events about earlier plies are in it already and are skipped. */
  readonly ply: number;
  /** The match had ended: its `finished` is sent at once, and the stream ends. */
  readonly ended: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Spectators: a match followed live (its event stream, see src/redis/redis-match-events.ts) and the list
 * of matches being played. Every spectator sees the same public view, token or not.
 *
 * @example
 * const start = await spectators.start(matchId, req.get('last-event-id'));
 * for await (const item of spectators.follow(start, stop, 15_000)) write(item);
 */
export class SpectatorService {
  constructor(
    private readonly deps: {
      readonly stores: Pick<Stores, 'bots' | 'matches'>;
      readonly events: MatchEventStore;
      /** Builds the spectator's state, as `GET /v1/matches/{id}/state` answers it. */
      readonly pull: PullService;
      readonly clock: Clock;
    },
  ) {}

  /** Throws `NotFoundError` unless the match exists. */
  async ensureExists(matchId: string): Promise<MatchRecord> {
    const match = await this.deps.stores.matches.getMatch(matchId);
    if (match === null) throw new NotFoundError('matches/not-found', `No match has the id ${matchId}.`);
    return match;
  }

  /**
   * Where a spectator's stream starts. A fresh connection gets the state now and the events after
   * the one that state ends at: the state is read first, then the newest events, so an event
   * recorded in between is sent, not lost (and one the state already shows is skipped). A resume
   * starts after `lastEventId`. Throws `NotFoundError` for an unknown match.
   */
  async start(matchId: string, lastEventId: string | undefined): Promise<SpectatorStart> {
    // A resume past what the stream still holds starts afresh, from the state: moves trimmed away
    // would leave the spectator's board wrong.
    if (lastEventId !== undefined && !(await this.deps.events.trimmedPast(matchId, lastEventId))) {
      const match = await this.ensureExists(matchId);
      // A sealed league game is its player's alone; the fresh path's state read refuses it too.
      assertUnsealed(null, match, this.deps.clock.now());
      return { matchId, state: null, after: lastEventId, ply: 0, ended: matchEnded(match.status) };
    }
    const state = await this.deps.pull.state(null, matchId);
    const recent = await this.deps.events.recent(matchId, RECENT_EVENTS);
    const at = recent.find((event) => endsAt(event, state.ply));
    return { matchId, state, after: at?.id ?? '0-0', ply: state.ply, ended: matchEnded(state.status) };
  }

  /**
   * The stream: the state (fresh connections), then each event as the arena records it, until
   * `finished`, after which it ends. Yields 'keep-alive' after `keepAliveMs` of silence. Waits
   * through the process' one subscriber (no connection, no polling); `closed` ends it at once.
   * A match that had ended when the stream opened gets the `finished` its stream still holds, or
   * one told from its record once the stream has expired.
   */
  async *follow(start: SpectatorStart, closed: AbortSignal, keepAliveMs: number): AsyncGenerator<StreamItem> {
    const { matchId } = start;
    if (start.state !== null) {
      yield { type: 'state', data: JSON.stringify({ serverTime: this.now(), state: start.state }) };
    }
    const reader = this.deps.events.openReader(closed);
    try {
      let { after, ply } = start;
      while (!closed.aborted) {
        const events = await reader.read(matchId, after, start.ended ? 0 : keepAliveMs);
        if (closed.aborted || reader.ended) break;
        if (events.length === 0) {
          if (start.ended) {
            yield await this.finishedFromRecord(matchId);
            return;
          }
          yield 'keep-alive';
          continue;
        }
        for (const event of events) {
          after = event.id;
          if (event.type === 'finished') {
            // Moves this spectator had not read when the end trimmed them: the state tells them.
            if (event.finish.plies !== undefined && ply <= event.finish.plies) {
              const state = await this.deps.pull.state(null, matchId);
              yield { type: 'state', data: JSON.stringify({ serverTime: this.now(), state }) };
            }
            yield {
              id: event.id,
              type: 'finished',
              data: JSON.stringify(this.finished(matchId, event.finish)),
            };
            return;
          }
          const turn = event.turn;
          if (event.type === 'move' ? event.move.ply < ply : turn.ply < ply) continue;
          ply = turn.ply;
          const data =
            event.type === 'move' ? this.moveEvent(matchId, event.move, turn) : this.turnEvent(matchId, turn);
          yield { id: event.id, type: event.type, data: JSON.stringify(data) };
        }
      }
    } catch (error) {
      if (!closed.aborted) throw error;
    } finally {
      reader.close();
    }
  }

  /**
   * The running matches, newest first (at most `limit`), with both players' current ratings and
   * the turn each is at (from its newest live event), in three round trips whatever the count.
   */
  async running(limit: number): Promise<Schemas['LiveMatch'][]> {
    const { stores, events } = this.deps;
    const { items } = await stores.matches.listMatches({ status: 'running', limit });
    const [bots, latest] = await Promise.all([
      stores.bots.getBots(items.flatMap((match) => [match.black.id, match.white.id])),
      events.latest(items.map((match) => match.id)),
    ]);
    return items.map((match, i) => {
      const rating = (bot: { rating: number } | null | undefined) => bot?.rating ?? null;
      const event = latest[i];
      const told = event ? turnOf(event) : null;
      // The newest event may be newer than the match record read just before it: it wins.
      const turn = told !== null && told.ply >= match.moveCount + 1 ? told : null;
      return {
        id: match.id,
        black: { ...match.black, rating: rating(bots[2 * i]) },
        white: { ...match.white, rating: rating(bots[2 * i + 1]) },
        rated: match.rated,
        rules: match.rules,
        startedAt: match.startedAt === null ? null : iso(match.startedAt),
        ply: turn?.ply ?? match.moveCount + 1,
        toMove: turn?.toMove ?? null,
        deadline: turn?.deadline == null ? null : iso(turn.deadline),
      };
    });
  }

  /** The server's time now, as events carry it (`serverTime`). */
  now(): string {
    return iso(this.deps.clock.now());
  }

  private turnEvent(matchId: string, turn: LiveTurn): Schemas['LiveTurnEvent'] {
    const clock = (side: 'black' | 'white') => ({
      remainingOverageMs: Math.max(0, Math.round(turn.banks[side])),
      lastLatencyMs: turn.lastLatency[side],
    });
    return {
      matchId,
      serverTime: this.now(),
      ply: turn.ply,
      toMove: turn.toMove,
      deadline: turn.deadline === null ? null : iso(turn.deadline),
      clocks: { black: clock('black'), white: clock('white') },
    };
  }

  private moveEvent(matchId: string, move: MoveRecord, turn: LiveTurn): Schemas['LiveMoveEvent'] {
    return {
      ...this.turnEvent(matchId, turn),
      move: { ...move, flips: [...move.flips] } as Schemas['MoveRecord'],
    };
  }

  private finished(matchId: string, finish: LiveFinish): Schemas['LiveFinishedEvent'] {
    return {
      matchId,
      status: finish.status,
      // Stored as the public view already; applied again so nothing private can pass.
      result: publicResult(finish.result) as Schemas['MatchResult'],
      ratings: finish.ratings,
      finishedAt: iso(finish.finishedAt),
    };
  }

  /** A `finished` told from the match's record, once its stream has expired (no id: nothing follows). */
  private async finishedFromRecord(matchId: string): Promise<StreamItem> {
    const match = await this.ensureExists(matchId);
    const finish: LiveFinish = {
      status: match.status === 'aborted' ? 'aborted' : 'finished',
      result: match.result ?? abortedResult(),
      ratings: match.ratings,
      finishedAt: match.finishedAt ?? match.createdAt,
    };
    return { type: 'finished', data: JSON.stringify(this.finished(matchId, finish)) };
  }
}

/** Whether `event` is the one a state at `ply` ends at: the move before it, or its turn. */
function endsAt(event: MatchEvent, ply: number): boolean {
  if (event.type === 'move') return event.move.ply === ply - 1;
  return event.type === 'turn' && event.turn.ply === ply;
}
