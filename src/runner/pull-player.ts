import type { components, Direction } from '../contract/index.ts';
import type { MoveOutcome } from '../model/judge.ts';
import type { MatchRecord } from '../model/records.ts';
import { matchState } from '../protocol/match-state.ts';
import type { BotEventStore, TurnStore } from '../store/pull-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock } from '../support/clock.ts';
import type { MoveRequest, Player } from './player.ts';

/**
 * A pull bot's side of a match: the worker opens the turn (the bot hears `yourTurn` on its event
 * stream and sees the deadline in the state), then waits on the turn store until the API hands it the
 * action the bot posted, or the time is up. The API has already checked the action is legal.
 */
export class PullPlayer implements Player {
  readonly readsStoredMoves = true;

  constructor(
    private readonly botId: string,
    private readonly deps: {
      readonly pull: TurnStore;
      readonly stores: Pick<Stores, 'matches'>;
      readonly clock: Clock;
    },
  ) {}

  async move({ state, timeoutMs, signal, deadline: fixed }: MoveRequest): Promise<MoveOutcome> {
    const { pull, stores, clock } = this.deps;
    const startedAt = clock.now();
    const started = performance.now();
    // The runner's deadline when it set one (what spectators see); the time is still counted from
    // here, so the bot never has less than its deadline says.
    const deadline = fixed ?? startedAt + timeoutMs;
    const [match, moves] = await Promise.all([
      stores.matches.getMatch(state.matchId),
      stores.matches.getMoves(state.matchId),
    ]);
    if (match === null) throw new Error(`match ${state.matchId} vanished`);
    const event = matchState({
      match,
      moves,
      viewer: state.you,
      // The state shows only the opponent's rating; the bot's own is not part of it.
      ratings: { black: state.opponent.rating, white: state.opponent.rating },
      deadline,
    });
    await pull.openTurn(
      { matchId: state.matchId, ply: state.ply, player: state.you, botId: this.botId, startedAt, deadline },
      JSON.stringify(event),
    );
    try {
      const action = await pull.awaitAction(state.matchId, state.ply, timeoutMs, signal);
      const latencyMs = Math.round(performance.now() - started);
      if (action === null) {
        return {
          ok: false,
          fault: {
            reason: 'timeout',
            cause: 'timeout',
            message: `no action within ${timeoutMs} ms`,
            latencyMs,
          },
        };
      }
      return {
        ok: true,
        action: {
          action: action.action,
          ...(action.direction ? { direction: action.direction as Direction } : {}),
        },
        latencyMs,
      };
    } finally {
      await pull.closeTurn(state.matchId);
    }
  }
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
  await Promise.all([match.black.id, match.white.id].map((id) => pull.appendEvent(id, 'matchStarted', data)));
}
