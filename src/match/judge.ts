import type { BotAction } from '../protocol/state.ts';
import { type Position, play } from '../reversi/index.ts';
import type { MatchRules } from '../store/records.ts';
import type { MoveOutcome } from './player.ts';
import { engineRules } from './replay.ts';

/** A fault that forfeits a turn: a player's kinds, or an illegal move. */
export type TurnFault = Omit<Extract<MoveOutcome, { ok: false }>['fault'], 'reason'> & {
  readonly reason: Extract<MoveOutcome, { ok: false }>['fault']['reason'] | 'illegal-move';
};

export type JudgedAnswer =
  | {
      readonly ok: true;
      readonly action: BotAction;
      readonly latencyMs: number;
      readonly flips: readonly string[];
      readonly position: Position;
    }
  | { readonly ok: false; readonly fault: TurnFault };

/**
 * What a player's answer to a turn in `position` counts as: the move it makes, or the fault it is
 * recorded as (its own, an answer later than the `timeoutMs` it had, or an illegal move). Shared by
 * the runner and the bot check, so a check reports exactly what a match would record. Pure.
 *
 * @example
 * judgeAnswer(initialPosition(), rules, { ok: true, action: { action: 'a1' }, latencyMs: 3 }, 6000);
 * // { ok: false, fault: { reason: 'illegal-move', cause: 'illegal-move', message: 'a1 is not legal: …', … } }
 */
export function judgeAnswer(
  position: Position,
  rules: MatchRules,
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
  const played = play(position, { square: action, ...(direction ? { direction } : {}) }, engineRules(rules));
  if (!played.ok) {
    const named = `${action}${direction ? ` ${direction}` : ''}`;
    return {
      ok: false,
      fault: {
        reason: 'illegal-move',
        cause: 'illegal-move',
        message: `${named} is not legal: ${played.error.message}`,
        latencyMs,
        body: JSON.stringify(answer.action).slice(0, 200),
      },
    };
  }
  return { ok: true, action: answer.action, latencyMs, flips: played.flips, position: played.position };
}
