import { clippedFaultMessage } from './faults.ts';
import type { Fault, MatchResult, MoveRecord } from './records.ts';

/** A fault that ends a match: the player's kinds plus an illegal move. */
export type EndingFault = Omit<Fault, 'player'> & { readonly reason: NonNullable<Fault['reason']> };

/**
 * The result of a match that a fault of `color` ends: the opponent wins. A side that faults before
 * making a single move of its own (the arena's passes and opening plies do not count) is a
 * no-show, told apart by its reason. A fault of either kind moves only the faulting bot's rating
 * (src/model/finish-plan.ts): so nobody is farmed for rating while its server is down, and a
 * bot that sees its opponent and never moves loses what it would expect to lose by playing. Pure.
 *
 * @example
 * faultResult([], 'black', { reason: 'bot-error', cause: 'connection-refused', message: '…' }, { black: 2, white: 2 });
 * // { winner: 'white', reason: 'no-show', discs: { black: 2, white: 2 }, fault: { player: 'black', reason: 'bot-error', … } }
 */
export function faultResult(
  moves: readonly MoveRecord[],
  color: 'black' | 'white',
  fault: EndingFault,
  discs: { readonly black: number; readonly white: number },
  /** False in a one-player game (the solo game): a fault loses it, but nobody wins it. */
  opponentWins = true,
): MatchResult {
  const showedUp = moves.some((move) => move.player === color && move.square !== 'pass' && !move.opening);
  const recorded: Fault = { player: color, ...fault, message: clippedFaultMessage(fault.message) };
  const winner = opponentWins ? (color === 'black' ? 'white' : 'black') : null;
  return { winner, discs, reason: showedUp ? fault.reason : 'no-show', fault: recorded };
}
