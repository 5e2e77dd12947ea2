import type { Direction, MatchState } from '../contract/index.ts';
import { actionChoices, gameFor, recordedChoices } from '../game/index.ts';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RuleViolationError,
} from '../model/errors.ts';
import { liveTurn } from '../model/live-turn.ts';
import { type Color, colorOfBot, type MoveRecord, matchEnded } from '../model/records.ts';
import { overageSpent, type ReplayedGame, replay } from '../model/replay.ts';
import { matchState } from '../protocol/match-state.ts';
import type { ActionContext, PulledAction, PullStore } from '../store/pull-store.ts';

export interface ActionInput {
  readonly action: string;
  readonly direction?: Direction;
  readonly colour?: Color;
  readonly ply?: number;
}

/** How long a move posted before the worker opened its turn waits for it to open (milliseconds, as a rule). */
const TURN_OPEN_WAIT_MS = 2000;

/** What playing a pulled action came to: the state to answer with, and whether this post played it. */
export type PulledActionAnswer =
  | { readonly played: true; readonly state: MatchState }
  | { readonly played: false; readonly state: MatchState | null };

/**
 * A pull bot's action, judged and recorded by the API in one step (see `TurnStore.recordPulledMove`):
 * the API is the one writer of the ply, so the answer is the state it wrote, with no wait for the
 * worker. A retry (same ply, or same Idempotency-Key) plays nothing and answers `played: false`
 * with no state: the caller reads the current one. A move posted just before the worker opened
 * its turn waits for the turn to open (on the bot's event stream, up to `TURN_OPEN_WAIT_MS`).
 *
 * Latency is counted on the store's clock, from the turn's start to the read the action is judged
 * on; the store refuses the write once the turn's time is up by that clock (a loss on time, which
 * the worker records).
 */
export async function playPulledAction(
  pull: PullStore,
  botId: string,
  matchId: string,
  input: ActionInput,
  idempotencyKey: string | undefined,
  gone: AbortSignal,
): Promise<PulledActionAnswer> {
  // Each side's keys are its own: shared, an opponent that posted with the key this bot would use
  // next (`<match>:<ply>`, say) made this bot's move a conflict, and its clock ran out.
  const key = idempotencyKey === undefined ? undefined : `${botId}:${idempotencyKey}`;
  let waited = false;
  for (;;) {
    const read = await pull.readForAction(matchId, key);
    if (read === null) throw new NotFoundError('matches/not-found', `No match has the id ${matchId}.`);
    const judged = judge(read, botId, input);
    if (judged.kind === 'retry') return { played: false, state: null };
    const { color, ply, move } = judged;
    const { turn } = read;
    if (turn !== null && turn.ply === ply && turn.botId === botId && turn.player === color) {
      const latencyMs = Math.max(0, read.now - turn.startedAt);
      const recorded = { ...move, latencyMs };
      const next = turnAfter(read, judged, latencyMs);
      const outcome = await pull.recordPulledMove({
        matchId,
        botId,
        move: recorded,
        next,
        action: actionOf(recorded),
        ...(key === undefined ? {} : { idempotencyKey: key }),
      });
      if (outcome === 'recorded') {
        const state = matchState({
          match: { ...read.match, moveCount: ply },
          moves: [...read.moves, recorded],
          viewer: color,
          ratings: turn.ratings,
          deadline: null,
        });
        return { played: true, state };
      }
      if (outcome === 'late') {
        throw new ConflictError(
          'matches/not-your-turn',
          `The time for ply ${ply} ran out at ${new Date(turn.deadline).toISOString()}: the move is not played, and the arena records a loss on time.`,
        );
      }
      // Not open any more: another post of this ply came first, or the turn's time was closed.
      continue;
    }
    if (waited || gone.aborted) {
      throw new ConflictError(
        'matches/not-your-turn',
        `The arena has not opened ply ${ply} for this bot; wait for its yourTurn event.`,
      );
    }
    waited = true;
    await awaitTurnOpen(pull, botId, matchId, ply, gone);
  }
}

/**
 * Waits (briefly) for the worker to open ply `ply` of the match for the bot: on the bot's event
 * stream, from its newest event, after a look at the turn that may already be open.
 */
async function awaitTurnOpen(
  pull: PullStore,
  botId: string,
  matchId: string,
  ply: number,
  gone: AbortSignal,
) {
  const after = await pull.lastEventId(botId);
  const open = await pull.getTurn(matchId);
  if (open !== null && open.ply === ply) return;
  const reader = pull.openReader(gone);
  const until = performance.now() + TURN_OPEN_WAIT_MS;
  try {
    for (let from = after; !reader.ended; ) {
      const left = Math.floor(until - performance.now());
      if (left <= 0) return;
      const events = await reader.read(botId, from, left);
      if (events.length === 0) return;
      if (events.some((event) => event.type === 'yourTurn' && event.data.includes(matchId))) return;
      from = events.at(-1)?.id ?? from;
    }
  } finally {
    reader.close();
  }
}

type Judged =
  | { readonly kind: 'retry' }
  | {
      readonly kind: 'play';
      readonly color: Color;
      readonly ply: number;
      readonly move: MoveRecord;
      /** The position after the move, and the clocks before it. */
      readonly position: unknown;
      readonly clocks: Pick<ReplayedGame, 'banks' | 'lastLatency'>;
    };

/**
 * What a posted action is: a retry of a recorded one, or a legal move for the ply the match is
 * at (its latency still to be counted). Throws the problem otherwise: not a player, not its turn,
 * the match over, a different action for a ply already played, an illegal action.
 */
function judge(read: ActionContext, botId: string, input: ActionInput): Judged {
  const { match, moves } = read;
  const color = colorOfBot(match, botId);
  if (color === null) {
    throw new PermissionError('matches/not-a-player', 'This token is not a player of this match.');
  }
  // What the game does not record (a direction under Reversi's all-lines capture, a colour outside
  // the solo game) is no part of the action, so a retry naming one is still the same.
  const game = gameFor(match.game);
  const options = game.options(match.rules);
  const chosen = recordedChoices(game, options, input);
  const submitted: PulledAction = { ply: input.ply ?? moves.length + 1, action: input.action, ...chosen };
  const earlier =
    read.earlier ??
    (input.ply !== undefined && input.ply <= moves.length ? recordedAt(moves, input.ply, color) : null);
  if (earlier !== null) {
    if (!same(earlier, { ...submitted, ply: earlier.ply })) {
      throw new ConflictError(
        'matches/ply-taken',
        `Ply ${earlier.ply} was already played with ${earlier.action}.`,
      );
    }
    return { kind: 'retry' };
  }
  if (matchEnded(match.status)) throw new ConflictError('matches/over', 'The match is over.');
  // No worker plays a queued match yet: no turn is open, no clock runs.
  if (match.status === 'queued') {
    throw new ConflictError('matches/not-your-turn', 'The match has not started yet.');
  }
  // The arena plays the opening's plies itself; no bot is asked before they are recorded.
  if (moves.length < game.openingActions(options).length) {
    throw new ConflictError('matches/not-your-turn', 'The arena is still playing the opening.');
  }
  const { position, banks, lastLatency } = replay(match.rules, moves, game);
  if (game.toMove(position) !== color || game.legalActions(position).length === 0) {
    throw new ConflictError('matches/not-your-turn', `It is not ${color}'s turn.`);
  }
  if (submitted.ply !== moves.length + 1) {
    throw new ConflictError(
      'matches/not-your-turn',
      `The match is at ply ${moves.length + 1}, not ${submitted.ply}.`,
    );
  }
  const legal = game.apply(position, { action: input.action, ...chosen }, options);
  if (!legal.ok) {
    throw new RuleViolationError(
      'matches/illegal-action',
      `${input.action} is not legal: ${legal.message}`,
      game.legalActions(position),
    );
  }
  const move: MoveRecord = {
    ply: submitted.ply,
    player: color,
    square: input.action,
    ...chosen,
    flips: legal.flips,
    latencyMs: 0,
  };
  return {
    kind: 'play',
    color,
    ply: submitted.ply,
    move,
    position: legal.state,
    clocks: { banks, lastLatency },
  };
}

/**
 * The turn after the judged move as spectators and the worker hear of it: the mover's clock
 * charged as a replay charges it, the next deadline counted from the read's instant.
 */
function turnAfter(read: ActionContext, judged: Extract<Judged, { kind: 'play' }>, latencyMs: number) {
  const { match } = read;
  const game = gameFor(match.game);
  const { timeLimitMs } = match.rules;
  const { color, clocks } = judged;
  const banks = { ...clocks.banks, [color]: clocks.banks[color] - overageSpent(latencyMs, timeLimitMs) };
  const lastLatency = { ...clocks.lastLatency, [color]: latencyMs };
  return liveTurn({
    game,
    position: judged.position,
    ply: judged.ply + 1,
    openingPlies: game.openingActions(game.options(match.rules)).length,
    timeLimitMs,
    banks,
    lastLatency,
    now: read.now,
  });
}

function actionOf(move: MoveRecord): PulledAction {
  return { ply: move.ply, action: move.square, ...actionChoices(move) };
}

const same = (a: PulledAction, b: PulledAction) =>
  a.ply === b.ply &&
  a.action === b.action &&
  (a.direction ?? null) === (b.direction ?? null) &&
  (a.colour ?? null) === (b.colour ?? null);

/** The action recorded at ply `ply`, which must have been the caller's. */
function recordedAt(moves: readonly MoveRecord[], ply: number, color: Color): PulledAction {
  const move = moves[ply - 1];
  if (!move || move.player !== color) {
    throw new InvalidRequestError('request/invalid', `Ply ${ply} was not yours to play.`, [
      { path: 'body.ply', message: 'not your ply' },
    ]);
  }
  return actionOf(move);
}
