/**
 * Rules options: one frozen value per game, fixed when the match is created.
 */

import { RulesError } from './errors.ts';

/** A player, named by disc colour. */
export type Color = 'black' | 'white';

/** The variant of the game being played. */
export interface RulesOptions {
  /** Who moves first from the start position; the arena's published rules say white. */
  readonly firstPlayer: Color;
  /** `all`: every trapped line flips. `single-direction`: the mover names one trapped line to flip. */
  readonly captureRule: 'all' | 'single-direction';
  /** `discs`: discs on the board. `empties-to-winner`: empty squares go to the winner (split on a draw). */
  readonly scoring: 'discs' | 'empties-to-winner';
}

/** The arena's published rules: white first, every trapped line flips, discs on the board decide. */
export const DEFAULT_RULES: RulesOptions = Object.freeze({
  firstPlayer: 'white',
  captureRule: 'all',
  scoring: 'discs',
});

const ALLOWED: { readonly [K in keyof RulesOptions]: readonly RulesOptions[K][] } = {
  firstPlayer: ['white', 'black'],
  captureRule: ['all', 'single-direction'],
  scoring: ['discs', 'empties-to-winner'],
};

/**
 * Builds a frozen `RulesOptions`, filling unset fields from `DEFAULT_RULES`. Throws a `RulesError`
 * (`reversi/invalid-rules`) for a value outside the documented ones, so that a bad value cannot
 * silently become a different game; keys it does not know are dropped.
 *
 * @example
 * const othello = rulesOptions({ firstPlayer: 'black', scoring: 'empties-to-winner' });
 * othello.captureRule; // 'all'
 */
export function rulesOptions(partial: Partial<RulesOptions> = {}): RulesOptions {
  const merged = {
    firstPlayer: partial.firstPlayer ?? DEFAULT_RULES.firstPlayer,
    captureRule: partial.captureRule ?? DEFAULT_RULES.captureRule,
    scoring: partial.scoring ?? DEFAULT_RULES.scoring,
  };
  for (const key of Object.keys(ALLOWED) as (keyof RulesOptions)[]) {
    if (!(ALLOWED[key] as readonly unknown[]).includes(merged[key])) {
      throw new RulesError('reversi/invalid-rules', `rules option ${key} cannot be ${String(merged[key])}`);
    }
  }
  return Object.freeze(merged);
}

/**
 * The other player.
 *
 * @example
 * opponent('white'); // 'black'
 */
export function opponent(color: Color): Color {
  return color === 'black' ? 'white' : 'black';
}
