import type { BotAction } from '../contract/index.ts';
import type { AnyGame } from '../game/index.ts';
import type { FaultCause, FaultReason, PlayerFaultReason } from './faults.ts';

/** What a side answers on its turn: an action and how long it took, or the fault that forfeits it. */
export type MoveOutcome =
  | { readonly ok: true; readonly action: BotAction; readonly latencyMs: number }
  | {
      readonly ok: false;
      readonly fault: {
        readonly reason: PlayerFaultReason;
        readonly cause: FaultCause;
        readonly message: string;
        readonly status?: number;
        readonly latencyMs: number;
        readonly body?: string;
      };
    };

/** A fault that forfeits a turn: a player's kinds, or an illegal move. */
export type TurnFault = Omit<Extract<MoveOutcome, { ok: false }>['fault'], 'reason'> & {
  readonly reason: FaultReason;
};

export type JudgedAnswer =
  | {
      readonly ok: true;
      readonly action: BotAction;
      readonly latencyMs: number;
      readonly flips: readonly string[];
      /** The game's position after the action. */
      readonly position: unknown;
    }
  | { readonly ok: false; readonly fault: TurnFault };

/**
 * What a player's answer to a turn in `position` of `game` (played under `options`) counts as: the
 * move it makes, or the fault it is recorded as (its own, an answer later than the `timeoutMs` it
 * had, or an illegal move). Shared by the runner and the bot check, so a check reports exactly what
 * a match would record. Pure.
 *
 * @example
 * judgeAnswer(reversi, options, reversi.initialState(options), { ok: true, action: { action: 'a1' }, latencyMs: 3 }, 6000);
 * // { ok: false, fault: { reason: 'illegal-move', cause: 'illegal-move', message: 'a1 is not legal: …', … } }
 */
export function judgeAnswer(
  game: AnyGame,
  options: unknown,
  position: unknown,
  answer: MoveOutcome,
  timeoutMs: number,
): JudgedAnswer {
  if (!answer.ok) return answer;
  const { latencyMs } = answer;
  if (latencyMs > timeoutMs) {
    return {
      ok: false,
      fault: {
        reason: 'timeout',
        cause: 'timeout',
        message: `answered after ${latencyMs} ms, over the ${timeoutMs} ms it had`,
        latencyMs,
      },
    };
  }
  const { action, direction } = answer.action;
  const played = game.apply(position, answer.action, options);
  if (!played.ok) {
    const named = `${action}${direction ? ` ${direction}` : ''}`;
    return {
      ok: false,
      fault: {
        reason: 'illegal-move',
        cause: 'illegal-move',
        message: `${named} is not legal: ${played.message}`,
        latencyMs,
        body: JSON.stringify(answer.action).slice(0, 200),
      },
    };
  }
  return { ok: true, action: answer.action, latencyMs, flips: played.flips, position: played.state };
}
