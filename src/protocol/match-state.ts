import type { MatchState } from '../contract/index.ts';
import { gameFor, otherSide } from '../game/index.ts';
import { resultAsSeenBy } from '../model/faults.ts';
import type { Color, MatchRecord, MoveRecord } from '../model/records.ts';
import { replay } from '../model/replay.ts';
import { botState } from './state.ts';

export interface StateView {
  readonly match: MatchRecord;
  readonly moves: readonly MoveRecord[];
  /** The caller's colour when it plays in the match; spectators see the side to move. */
  readonly viewer: Color | null;
  /** The admin sees a fault in full; otherwise only the bot at fault does. */
  readonly privileged?: boolean;
  readonly ratings: Record<Color, number>;
  /** When the side to move runs out of time, while the arena waits for it (epoch ms). */
  readonly deadline: number | null;
}

/**
 * A match's state in the bot protocol's shape plus whose turn it is, its status and deadline: what
 * `GET /v1/matches/{id}/state` answers and what a pull bot's `yourTurn` event carries.
 */
export function matchState(view: StateView): MatchState {
  // Board and clocks both come from the record alone, so the two can never disagree.
  const game = gameFor(view.match.game);
  const replayed = replay(view.match.rules, view.moves, game);
  const { position } = replayed;
  const running = view.match.status === 'queued' || view.match.status === 'running';
  const toMove: Color | null = running && !game.isOver(position) ? game.toMove(position) : null;
  const you: Color = view.viewer ?? toMove ?? 'black';
  const state = botState({
    match: view.match,
    moves: view.moves,
    position,
    you,
    timeLimitMs: view.match.rules.timeLimitMs,
    remainingOverageMs: Math.max(0, replayed.banks[you]),
    lastLatencyMs: replayed.lastLatency[you],
    opponentRating: view.ratings[otherSide(you)],
  });
  return {
    ...state,
    legalMoves: toMove === you ? state.legalMoves : [],
    toMove,
    status: view.match.status,
    deadline: toMove !== null && view.deadline !== null ? new Date(view.deadline).toISOString() : null,
    result:
      view.match.result === null
        ? null
        : (resultAsSeenBy(view.match.result, {
            color: view.viewer,
            privileged: view.privileged ?? false,
          }) as MatchState['result']),
  };
}
