/**
 * Who gets which colour in a Swiss pairing, from both players' colours so far, and how strict a
 * round may be about it.
 */

import type { Pairing, Side } from './types.ts';

/**
 * How strictly a Swiss round holds colours, strictest first; a round falls back to the next rule
 * only when no repeat-free pairing keeps the stricter one.
 * - 'balanced': a bot that has had one colour more gets the other (so with no byes, after every
 *   even round each bot has had as many whites as blacks), and 'absolute' holds.
 * - 'absolute': FIDE's absolute colour criteria: no bot ends with |whites − blacks| > 2 or with the
 *   same colour three games in a row.
 * - 'relaxed': any colours.
 */
export type ColourRule = 'balanced' | 'absolute' | 'relaxed';

export const COLOUR_RULES: readonly ColourRule[] = ['balanced', 'absolute', 'relaxed'];

/** A bot's colours in the order it played them. */
export type ColourHistory = readonly Side[];

/** What giving a bot a colour breaks: each 0 or 1, or summed over both players of a pairing. */
export interface ColourCost {
  /** Breaks the absolute criteria. */
  readonly absolute: number;
  /** Breaks 'balanced' (an absolute breach counts here too). */
  readonly balanced: number;
  /** Repeats the last colour of a bot that is even (a mild preference: alternate). */
  readonly mild: number;
}

function costOf(history: ColourHistory, side: Side): ColourCost {
  const difference = history.reduce((d, s) => d + (s === 'white' ? 1 : -1), 0);
  const after = difference + (side === 'white' ? 1 : -1);
  const n = history.length;
  const third = n >= 2 && history[n - 1] === side && history[n - 2] === side;
  const absolute = Math.abs(after) > 2 || third ? 1 : 0;
  const balanced = absolute === 1 || (difference !== 0 && Math.abs(after) > Math.abs(difference)) ? 1 : 0;
  const mild = difference === 0 && history[n - 1] === side ? 1 : 0;
  return { absolute, balanced, mild };
}

function plus(a: ColourCost, b: ColourCost): ColourCost {
  return { absolute: a.absolute + b.absolute, balanced: a.balanced + b.balanced, mild: a.mild + b.mild };
}

/** Negative when `a` is better (breaks less, the stricter rules first). */
function compare(a: ColourCost, b: ColourCost): number {
  return a.absolute - b.absolute || a.balanced - b.balanced || a.mild - b.mild;
}

/** The colour a bot would rather have, or null when both are alike to it. */
function preference(history: ColourHistory): Side | null {
  const order = compare(costOf(history, 'white'), costOf(history, 'black'));
  return order < 0 ? 'white' : order > 0 ? 'black' : null;
}

export interface Oriented {
  readonly pairing: Pairing;
  readonly cost: ColourCost;
}

/**
 * Colours for `higher` (the better-ranked) and `lower`: the choice that breaks the fewest colour
 * rules, the stricter first. When both choices are alike, the higher-ranked bot's preference wins,
 * then the lower's (FIDE's order); when neither has one (no games yet), `higherWhite` decides, so
 * the first round can alternate colours by board.
 *
 * FIDE would look further back before falling to rank (the last round the two had different
 * colours); we do not: the rank decides at once, which is simpler and as fair on average.
 */
export function orient(
  higher: { readonly id: string; readonly history: ColourHistory },
  lower: { readonly id: string; readonly history: ColourHistory },
  higherWhite: boolean,
): Oriented {
  const asWhite = plus(costOf(higher.history, 'white'), costOf(lower.history, 'black'));
  const asBlack = plus(costOf(higher.history, 'black'), costOf(lower.history, 'white'));
  const order = compare(asWhite, asBlack);
  const white = order !== 0 ? order < 0 : higherTakesWhite(higher.history, lower.history, higherWhite);
  return white
    ? { pairing: { white: higher.id, black: lower.id }, cost: asWhite }
    : { pairing: { white: lower.id, black: higher.id }, cost: asBlack };
}

function higherTakesWhite(higher: ColourHistory, lower: ColourHistory, fallback: boolean): boolean {
  const own = preference(higher);
  if (own !== null) return own === 'white';
  const other = preference(lower);
  if (other !== null) return other === 'black';
  return fallback;
}

/** Whether colours that cost `cost` are allowed under `rule`. */
export function allows(rule: ColourRule, cost: ColourCost): boolean {
  if (rule === 'relaxed') return true;
  if (rule === 'absolute') return cost.absolute === 0;
  return cost.balanced === 0;
}
