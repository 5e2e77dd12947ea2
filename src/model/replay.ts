/**
 * The match model: a match read from its record (the position, each side's time bank, the state a
 * side sees, what an answer counts as). The runner (src/runner) and the arena's services (src/arena)
 * both stand on it, so neither needs the other.
 */

import { type AnyGame, actionChoices, gameFor } from '../game/index.ts';
import type { Color, MatchRules, MoveRecord } from './records.ts';

/** Recorded moves that do not replay under the match's rules: the record is corrupt. */
export class ReplayError extends Error {
  override readonly name = 'ReplayError';
}

export interface ReplayedGame {
  /** The game's position after the recorded moves (its own state value; see src/game). */
  readonly position: unknown;
  /** What is left of each side's overage bank. */
  readonly banks: Record<Color, number>;
  /** Each side's latest answer time (null before its first answer: opening plies are no answers). */
  readonly lastLatency: Record<Color, number | null>;
}

/** Overage a move spends: whatever it took beyond the per-move limit. */
export function overageSpent(latencyMs: number, timeLimitMs: number): number {
  return Math.max(0, latencyMs - timeLimitMs);
}

/**
 * Rebuilds a match's position and clocks from its recorded moves with its `game` (Reversi's when
 * left out, as for a record without a game id), which is how a match resumes on another worker
 * after a crash. The arena's own plies (passes, the opening's plies) charge no clock. Throws when
 * the record is not a legal game (a corrupt record).
 *
 * @example
 * const { position, banks } = replay(match.rules, moves, gameFor(match.game));
 */
export function replay(
  rules: MatchRules,
  moves: readonly MoveRecord[],
  game: AnyGame = gameFor(),
): ReplayedGame {
  const options = game.options(rules);
  let position = game.initialState(options);
  const banks = { black: rules.overageMs, white: rules.overageMs };
  const lastLatency: Record<Color, number | null> = { black: null, white: null };
  for (const move of moves) {
    if (move.square === 'pass') {
      if (!game.mustPass(position)) throw new ReplayError(`recorded ply ${move.ply} is a pass out of turn`);
      position = game.pass(position);
      continue;
    }
    const result = game.apply(position, { action: move.square, ...actionChoices(move) }, options);
    if (!result.ok)
      throw new ReplayError(`recorded ply ${move.ply} (${move.square}) is not legal: ${result.message}`);
    position = result.state;
    if (move.opening) continue;
    banks[move.player] -= overageSpent(move.latencyMs, rules.timeLimitMs);
    lastLatency[move.player] = move.latencyMs;
  }
  return { position, banks, lastLatency };
}
