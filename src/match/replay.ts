import {
  type Color,
  type Direction,
  initialPosition,
  type Position,
  play,
  type RulesOptions,
} from '../reversi/index.ts';
import type { MatchRules, MoveRecord } from '../store/records.ts';

export interface ReplayedGame {
  readonly position: Position;
  /** What is left of each side's overage bank. */
  readonly banks: Record<Color, number>;
  /** Each side's latest answer time (null before its first answer). */
  readonly lastLatency: Record<Color, number | null>;
}

export function engineRules(rules: MatchRules): RulesOptions {
  return { firstPlayer: rules.firstPlayer, captureRule: rules.captureRule, scoring: rules.scoring };
}

/** Overage a move spends: whatever it took beyond the per-move limit. */
export function overageSpent(latencyMs: number, timeLimitMs: number): number {
  return Math.max(0, latencyMs - timeLimitMs);
}

/**
 * Rebuilds a match's position and clocks from its recorded moves, which is how a match resumes on
 * another worker after a crash. Throws when the record is not a legal game (a corrupt record).
 */
export function replay(rules: MatchRules, moves: readonly MoveRecord[]): ReplayedGame {
  const engine = engineRules(rules);
  let position = initialPosition(engine);
  const banks = { black: rules.overageMs, white: rules.overageMs };
  const lastLatency: Record<Color, number | null> = { black: null, white: null };
  for (const move of moves) {
    const result = play(
      position,
      { square: move.square, ...(move.direction ? { direction: move.direction as Direction } : {}) },
      engine,
    );
    if (!result.ok)
      throw new Error(`recorded ply ${move.ply} (${move.square}) is not legal: ${result.error.message}`);
    position = result.position;
    if (move.square !== 'pass') {
      banks[move.player] -= overageSpent(move.latencyMs, rules.timeLimitMs);
      lastLatency[move.player] = move.latencyMs;
    }
  }
  return { position, banks, lastLatency };
}
