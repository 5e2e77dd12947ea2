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
 *
 * The solo game (state.game === "solo", rules on the arena's /protocol page) sends the same state with:
 *   you           always "black"; opponent is your own bot (it sits on both sides)
 *   board         also "?" a face-down token, "b" / "w" / "o" a turned black, white or blank token
 *   tokens        the tokens on the board: { square, hidden: true } or { square, hidden: false,
 *                 colour: "black" | "white" | "blank", value: 0..10 }
 *   captured      the tokens captured so far, [{ colour, value }]; score: your score so far
 *   legalActions  every legal placement with its colour, [{ action: "d3", colour: "white" }, ...]
 *   rules         { scoring: "tokens" | "points", layout, ... }
 * and its action names the colour of the disc placed: { action: "d3", colour: "white" }.
 */

import type { BotAction, BotState, Color, Direction } from '@reversi-arena/client';

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
/** The solo game's sides: a token is trapped between two discs touching it by a side, never diagonally. */
const SIDES: readonly (readonly [number, number])[] = [
  [-1, 0],
  [0, 1],
  [1, 0],
  [0, -1],
];
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
  if (state.game === 'solo') {
    const [action] = state.legalActions ?? [];
    return action === undefined ? null : { action: action.action, colour: action.colour };
  }
  const [first] = state.legalMoves;
  return first === undefined ? null : actionFor(state, first);
}

const inside = (row: number, col: number) => row >= 0 && row < 8 && col >= 0 && col < 8;

/**
 * What a `colour` disc on `square` does in the solo game: what it scores now, and how many face-down
 * tokens it turns. It scores the turned tokens it captures: 1 each, or their values under "points"
 * scoring. Only what the state shows is used, and that is enough: a token can be captured only once
 * an earlier move has turned it face up, so what the face-down tokens hide never matters here.
 */
export function soloEffect(
  state: BotState,
  square: string,
  colour: Color,
): { score: number; turned: number } {
  const board = state.board.map((row) => [...row]);
  const disc = colour === 'black' ? 'B' : 'W';
  const other = disc === 'B' ? 'W' : 'B';
  const at = (r: number, c: number) => (inside(r, c) ? board[r]![c] : undefined);
  const row = Number(square[1]) - 1;
  const col = square.charCodeAt(0) - 'a'.charCodeAt(0);
  board[row]![col] = disc;
  // The placed disc, then the discs it flips (a token breaks a line, as an empty square does).
  const changed: [number, number][] = [[row, col]];
  for (const [dr, dc] of Object.values(DIRECTIONS)) {
    const line: [number, number][] = [];
    let r = row + dr;
    let c = col + dc;
    while (at(r, c) === other) {
      line.push([r, c]);
      r += dr;
      c += dc;
    }
    if (line.length > 0 && at(r, c) === disc) changed.push(...line);
  }
  for (const [r, c] of changed) board[r]![c] = disc;
  const captured = new Set<string>();
  const turned = new Set<string>();
  // Every disc the move placed or flipped turns and traps tokens by its sides.
  for (const [r, c] of changed) {
    for (const [dr, dc] of SIDES) {
      const token = at(r + dr, c + dc);
      const name = `${'abcdefgh'[c + dc]}${r + dr + 1}`;
      if (token === '?') turned.add(name);
      // Captured: a turned token not of the disc's colour (a blank is of neither) with a disc of that
      // colour on its far side.
      else if (token !== undefined && 'bwo'.includes(token) && token !== disc.toLowerCase()) {
        if (at(r + 2 * dr, c + 2 * dc) === disc) captured.add(name);
      }
    }
  }
  if (state.rules.scoring !== 'points') return { score: captured.size, turned: turned.size };
  const values = new Map((state.tokens ?? []).map((token) => [token.square as string, token.value ?? 0]));
  let score = 0;
  for (const name of captured) score += values.get(name) ?? 0;
  return { score, turned: turned.size };
}

// ==================================================================================================
// YOUR STRATEGY GOES HERE. Replace the body of chooseMove with your own (search, an opening book,
// a network...). It gets the state and returns an action built from one of state.legalMoves;
// actionFor() adds the direction the "single-direction" rule may need. In the solo game it returns
// one of state.legalActions, with its colour. Mind state.timeLimitMs: it includes the network, and
// running over spends state.remainingOverageMs, then loses the match.
// ==================================================================================================
/**
 * Reversi: a simple heuristic, a corner if any, never an X-square if avoidable, then the most flips.
 * The solo game: chooseSoloAction's.
 *
 * Ties go to the first move in legalMoves order (a1, b1, ... h8), so the answer is deterministic:
 * the same state always gets the same action, which makes a retried post harmless.
 */
export function chooseMove(state: BotState): BotAction {
  if (state.game === 'solo') return chooseSoloAction(state);
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

/**
 * The solo game: the placement that scores most now, then the one that turns the most face-down
 * tokens (more to capture later). Ties go to the first of state.legalActions.
 */
export function chooseSoloAction(state: BotState): BotAction {
  let best: BotAction | undefined;
  let bestScore: number[] = [];
  for (const { action, colour } of state.legalActions ?? []) {
    const { score, turned } = soloEffect(state, action, colour);
    if (best === undefined || isGreater([score, turned], bestScore)) {
      [best, bestScore] = [{ action, colour }, [score, turned]];
    }
  }
  if (best === undefined) throw new Error('no legal action in this solo state');
  return best;
}

/** Whether `a` comes after `b` in lexicographic order (as Python compares tuples). */
function isGreater(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! > b[i]!;
  }
  return false;
}
