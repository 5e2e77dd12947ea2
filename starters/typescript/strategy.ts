/**
 * The move chooser shared by push-bot.ts and pull-bot.ts: the one place to put your own strategy.
 *
 * A state is the arena's `BotState` (see GET /v1/games/reversi or the arena's /protocol page):
 *   board       8 strings of "B", "W", "." : rank 1 first, files a-h left to right ("d3" is board[2][3])
 *   you         "black" or "white"
 *   legalMoves  the squares you may play, e.g. ["c4", "d3", "e6", "f5"] (never empty on your turn)
 *   rules       { captureRule: "all" | "single-direction", ... }
 *   ply, history, timeLimitMs, remainingOverageMs, opponent, ...
 * An action is { action: "<square>" }, plus { direction: "n" | "ne" | ... | "nw" } under the
 * "single-direction" capture rule when the move traps lines in several directions.
 */

import type { BotAction, BotState, Direction } from '@reversi-arena/client';

/** A direction as the arena names it -> [row step, file step]; "n" is toward rank 1, "e" toward file h. */
const DIRECTIONS: Readonly<Record<Direction, readonly [number, number]>> = {
  n: [-1, 0],
  ne: [-1, 1],
  e: [0, 1],
  se: [1, 1],
  s: [1, 0],
  sw: [1, -1],
  w: [0, -1],
  nw: [-1, -1],
};
const CORNERS = new Set(['a1', 'h1', 'a8', 'h8']);
// The squares diagonally next to a corner: taking one often hands the corner to the opponent.
const X_SQUARES = new Set(['b2', 'g2', 'b7', 'g7']);

/** How many discs `square` flips in each direction it traps a line in (empty if none or unreadable). */
export function flipsByDirection(state: BotState, square: string): Partial<Record<Direction, number>> {
  const board = state.board;
  if (board.length !== 8 || board.some((row) => typeof row !== 'string' || row.length !== 8)) return {};
  const me = state.you === 'black' ? 'B' : 'W';
  const them = me === 'B' ? 'W' : 'B';
  const row = Number(square[1]) - 1;
  const col = square.charCodeAt(0) - 'a'.charCodeAt(0);
  const at = (r: number, c: number) => (r >= 0 && r < 8 && c >= 0 && c < 8 ? board[r]![c] : undefined);
  const found: Partial<Record<Direction, number>> = {};
  for (const [name, [dr, dc]] of Object.entries(DIRECTIONS) as [Direction, readonly [number, number]][]) {
    let r = row + dr;
    let c = col + dc;
    let count = 0;
    while (at(r, c) === them) {
      r += dr;
      c += dc;
      count++;
    }
    if (count > 0 && at(r, c) === me) found[name] = count;
  }
  return found;
}

/** The action playing `square`: under "single-direction" capture, along its longest line. */
export function actionFor(state: BotState, square: string): BotAction {
  if (state.rules.captureRule !== 'single-direction') return { action: square };
  let best: Direction | undefined;
  let most = 0;
  // Strictly more only, so ties go to n, ne, e, ... in that order.
  for (const [name, count] of Object.entries(flipsByDirection(state, square)) as [Direction, number][]) {
    if (count > most) [best, most] = [name, count];
  }
  return best === undefined ? { action: square } : { action: square, direction: best };
}

/** The discs `square` flips under the state's capture rule. */
export function flips(state: BotState, square: string): number {
  const lines = Object.values(flipsByDirection(state, square));
  if (state.rules.captureRule === 'single-direction') return Math.max(0, ...lines);
  return lines.reduce((sum, count) => sum + count, 0);
}

/** The first legal move as an action (a fallback), or null when there is none. */
export function firstLegal(state: BotState): BotAction | null {
  const [first] = state.legalMoves;
  return first === undefined ? null : actionFor(state, first);
}

// ==================================================================================================
// YOUR STRATEGY GOES HERE. Replace the body of chooseMove with your own (search, an opening book,
// a network...). It gets the state and returns an action built from one of state.legalMoves;
// actionFor() adds the direction the "single-direction" rule may need. Mind state.timeLimitMs:
// it includes the network, and running over spends state.remainingOverageMs, then loses the match.
// ==================================================================================================
/**
 * A simple heuristic: a corner if any, never an X-square if avoidable, then the most flips.
 *
 * Ties go to the first move in legalMoves order (a1, b1, ... h8), so the answer is deterministic:
 * the same state always gets the same action, which makes a retried post harmless.
 */
export function chooseMove(state: BotState): BotAction {
  const score = (square: string) => [
    CORNERS.has(square) ? 1 : 0,
    X_SQUARES.has(square) ? 0 : 1,
    flips(state, square),
  ];
  let best: string | undefined;
  let bestScore: number[] = [];
  for (const square of state.legalMoves) {
    const candidate = score(square);
    if (best === undefined || isGreater(candidate, bestScore)) [best, bestScore] = [square, candidate];
  }
  if (best === undefined) throw new Error('no legal move in this state');
  return actionFor(state, best);
}

/** Whether `a` comes after `b` in lexicographic order (as Python compares tuples). */
function isGreater(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! > b[i]!;
  }
  return false;
}
