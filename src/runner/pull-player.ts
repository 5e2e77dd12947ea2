import type { components, Direction } from '../contract/index.ts';
import { actionChoices } from '../game/index.ts';
import type { MatchRecord } from '../model/records.ts';
import { matchState } from '../protocol/match-state.ts';
import type { BotEventStore, RecordedPly, TurnStore } from '../store/pull-store.ts';
import type { Clock } from '../support/clock.ts';
import type { MoveRequest, Player, PlayerAnswer, RecordedAnswer } from './player.ts';

/**
 * A pull bot's side of a match: the worker opens the turn (the bot hears `yourTurn` on its event
 * stream and sees the deadline in the state), then waits on the match's event stream until the
 * API has recorded the bot's move through that turn, or the time is up. The API is the one writer
 * of the ply: it checked the move and stored it; the worker only plays on from it.
 */
export class PullPlayer implements Player {
  readonly readsStoredMoves = true;

  constructor(
    private readonly botId: string,
    private readonly deps: {
      readonly pull: TurnStore;
      readonly clock: Clock;
    },
  ) {}

  async move(request: MoveRequest): Promise<PlayerAnswer> {
    const { timeoutMs, signal, deadline: fixed, match: held } = request;
    const state = request.state();
    const { pull, clock } = this.deps;
    const started = performance.now();
    // The runner's deadline when it set one (what spectators see); the time is still counted from
    // the turn's start on the store's clock, so the bot never has less than its deadline says.
    const deadline = fixed ?? clock.now() + timeoutMs;
    // The runner hands the match over to a player that reads stored moves (`readsStoredMoves`).
    if (held === undefined) throw new Error(`match ${state.matchId}: a pull player needs the match it plays`);
    const { record, moves, ratings, run } = held;
    const event = matchState({
      match: { ...record, moveCount: moves.length },
      moves,
      viewer: state.you,
      // The state shows only the opponent's rating; the bot's own is not part of it.
      ratings: { black: state.opponent.rating, white: state.opponent.rating },
      deadline,
    });
    const turn = await pull.openTurn(
      {
        matchId: state.matchId,
        ply: state.ply,
        player: state.you,
        botId: this.botId,
        deadline,
        timeoutMs,
        run,
        ratings,
      },
      JSON.stringify(event),
    );
    // The move's event comes after the turn opened: its stream id is past the turn's start.
    const after = `${turn.startedAt - 1}-0`;
    const heard = await pull.awaitPulledMove(state.matchId, state.ply, after, timeoutMs, signal);
    if (heard !== null && heard !== 'ended') return recordedAnswer(heard);
    // Time is up (or the match ended, or the worker stops): close the turn unless a move closed it first.
    if (!(await pull.closeTurn(state.matchId, state.ply))) {
      const late = await pull.awaitPulledMove(state.matchId, state.ply, after, 0, signal);
      if (late !== null && late !== 'ended') return recordedAnswer(late);
    }
    const latencyMs = Math.round(performance.now() - started);
    return {
      ok: false,
      fault: { reason: 'timeout', cause: 'timeout', message: `no action within ${timeoutMs} ms`, latencyMs },
    };
  }
}

/** A ply the API recorded, as the runner plays on from it. */
function recordedAnswer({ move, turn }: RecordedPly): RecordedAnswer {
  return {
    ok: true,
    action: {
      action: move.square,
      ...actionChoices({ direction: move.direction as Direction | undefined, colour: move.colour }),
    },
    latencyMs: move.latencyMs,
    recorded: { next: turn },
  };
}

/** The `matchStarted` event both players find on their event streams. */
export async function announceStart(pull: BotEventStore, match: MatchRecord): Promise<void> {
  const started: components['schemas']['BotMatchStartedEvent'] = {
    matchId: match.id,
    black: match.black,
    white: match.white,
    rules: match.rules,
  };
  const data = JSON.stringify(started);
  // One event per bot: the solo game seats its one player on both sides.
  const players = new Set([match.black.id, match.white.id]);
  await Promise.all([...players].map((id) => pull.appendEvent(id, 'matchStarted', data)));
}
