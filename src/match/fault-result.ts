import { clippedFaultMessage } from '../faults.ts';
import type { Fault, MatchResult, MoveRecord } from '../store/records.ts';

/** A fault that ends a match: the player's kinds plus an illegal move. */
export type EndingFault = Omit<Fault, 'player'> & { readonly reason: NonNullable<Fault['reason']> };

/**
 * The result of a match that a fault of `color` ends. A side that faults before making a single
 * move of its own (the arena's passes and opening plies do not count) is a no-show: no winner, and the match counts
 * for nobody's rating (the Lichess rule for games aborted before both sides moved), so a bot that
 * is down cannot be farmed for rating. Otherwise the opponent wins. Pure.
 *
 * @example
 * faultResult([], 'black', { reason: 'bot-error', cause: 'connection-refused', message: '…' }, { black: 2, white: 2 });
 * // { winner: null, reason: 'no-show', discs: { black: 2, white: 2 }, fault: { player: 'black', reason: 'bot-error', … } }
 */
export function faultResult(
  moves: readonly MoveRecord[],
  color: 'black' | 'white',
  fault: EndingFault,
  discs: { readonly black: number; readonly white: number },
): MatchResult {
  const showedUp = moves.some((move) => move.player === color && move.square !== 'pass' && !move.opening);
  const recorded: Fault = { player: color, ...fault, message: clippedFaultMessage(fault.message) };
  return showedUp
    ? { winner: color === 'black' ? 'white' : 'black', discs, reason: fault.reason, fault: recorded }
    : { winner: null, discs, reason: 'no-show', fault: recorded };
}
