/**
 * From a game's position to the wire shapes bots see: the state the arena sends on a bot's turn
 * (push) or serves to it (pull). The match's game (src/game) says what the board and the legal
 * actions are; the shapes are the contract's (src/contract); pinned by the golden fixtures in
 * test/fixtures/protocol.
 */

import type { BotState, Direction as WireDirection } from '../contract/index.ts';
import { type AnyGame, gameFor } from '../game/index.ts';
import type { Color, MatchRecord, MoveRecord } from '../model/records.ts';

export interface TurnContext {
  readonly match: MatchRecord;
  readonly moves: readonly MoveRecord[];
  /** The position in the match's game (the game's own state value, as `replay` gives it). */
  readonly position: unknown;
  readonly timeLimitMs: number;
  readonly remainingOverageMs: number;
  readonly lastLatencyMs: number | null;
  readonly opponentRating: number;
  /** Whose view this is; the side to move when left out. */
  readonly you?: Color;
  /** `moves` as bots see them, when the caller keeps them (the runner does); else made from `moves`. */
  readonly history?: WireHistory;
}

type HistoryItem = BotState['history'][number];

function historyItem(move: MoveRecord): HistoryItem {
  const item: HistoryItem = { ply: move.ply, player: move.player, square: move.square };
  if (move.direction) item.direction = move.direction as WireDirection;
  if (move.colour) item.colour = move.colour;
  if (move.opening) item.opening = true;
  return item;
}

/**
 * A match's history as bots see it, kept by the runner as moves are played: every turn's state
 * carries every move so far, and building the items and their JSON anew each turn was the largest
 * part of a worker's cost per move after the HTTP call itself. Each move's item is made once and its
 * JSON appended, as UTF-8 bytes, to one buffer; `StateWriter` writes the state's bytes around them.
 * Kept as a string instead (each turn's appended to the last's), the history was a rope as deep as
 * the match was long, which every turn's encoding to bytes walked again, its pieces spread over the
 * heap: about a tenth of a busy worker's time. Bytes are copied at once, and lie outside the heap
 * the garbage collector copies.
 *
 * @example
 * const history = new WireHistory(moves);
 * const body = new StateWriter(match, 'black').body({ ...turn, history }, history);
 */
export class WireHistory {
  readonly #items: HistoryItem[] = [];
  /** The items' JSON, comma-separated, without the brackets: `#length` bytes of it. */
  // Not from Node's shared pool: a match keeps its history for its whole length, and a slice of the
  // pool would keep the pool's other 7 kB alive with it.
  #json = Buffer.allocUnsafeSlow(1024);
  #length = 0;

  constructor(moves: readonly MoveRecord[] = []) {
    for (const move of moves) this.push(move);
  }

  push(move: MoveRecord): void {
    const item = historyItem(move);
    this.#items.push(item);
    const json = `${this.#items.length > 1 ? ',' : ''}${JSON.stringify(item)}`;
    const needed = this.#length + Buffer.byteLength(json);
    if (needed > this.#json.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(needed, this.#json.length * 2));
      this.#json.copy(grown, 0, 0, this.#length);
      this.#json = grown;
    }
    this.#length += this.#json.write(json, this.#length);
  }

  get length(): number {
    return this.#items.length;
  }

  /** The items so far, in a new array (the history goes on growing; a state must not). */
  items(): HistoryItem[] {
    return this.#items.slice();
  }

  /** How many bytes the items' JSON takes (see `copyJson`). */
  get jsonBytes(): number {
    return this.#length;
  }

  /** Copies the items' JSON (UTF-8, without the brackets) into `target` at `offset`. */
  copyJson(target: Buffer, offset: number): void {
    this.#json.copy(target, offset, 0, this.#length);
  }
}

/**
 * One side's states in a match, written as UTF-8 bytes turn after turn, exactly as
 * `JSON.stringify(botState(turn))` writes them. What a run does not change (the match's id, the
 * game, the side, the rules, the opponent) is serialized once; each turn writes only the board,
 * the legal moves, the ply, the clocks and what the board does not say, around the history's
 * bytes copied from `history`. Building the state object and serializing it whole was a tenth of
 * a busy worker's time per move (18 µs at ply 30, against about 4 µs so: docs/scale.md).
 *
 * @example
 * const writer = new StateWriter(match, 'black');
 * const body = writer.body(turn, history); // Buffer.from(JSON.stringify(botState(turn))), byte for byte
 */
export class StateWriter {
  readonly #game: AnyGame;
  readonly #options: unknown;
  readonly #you: Color;
  readonly #head: string;
  readonly #rules: string;
  /** The opponent as the last turn's rating showed it (a rating is the turn's: see TurnContext). */
  #opponentRating: number | undefined;
  #opponent = '';

  constructor(
    private readonly match: MatchRecord,
    you: Color,
  ) {
    this.#game = gameFor(match.game);
    this.#options = this.#game.options(match.rules);
    this.#you = you;
    this.#head = JSON.stringify({ matchId: match.id, game: this.#game.id, you }).slice(0, -1);
    this.#rules = JSON.stringify(rulesView(match));
  }

  /** The state of `turn` (whose `you` must be this writer's side), its history copied from `history`. */
  body(turn: TurnContext, history: WireHistory): Buffer {
    const game = this.#game;
    const { position } = turn;
    const toMove = game.toMove(position);
    if ((turn.you ?? toMove) !== this.#you) {
      throw new Error(`a state writer for ${this.#you} was asked for the other side's state`);
    }
    if (turn.opponentRating !== this.#opponentRating) {
      this.#opponentRating = turn.opponentRating;
      this.#opponent = JSON.stringify(opponentView(this.match, this.#you, turn.opponentRating));
    }
    const legalMoves = this.#you === toMove ? game.legalActions(position) : [];
    const shown = game.shownState
      ? JSON.stringify(game.shownState(position, this.#options)).slice(1, -1)
      : '';
    const head = `${this.#head},"board":${JSON.stringify(game.boardRows(position))},"legalMoves":${JSON.stringify(legalMoves)},"ply":${turn.moves.length + 1},"history":[`;
    const tail = `],"rules":${this.#rules},"timeLimitMs":${JSON.stringify(turn.timeLimitMs)},"remainingOverageMs":${JSON.stringify(turn.remainingOverageMs)},"lastLatencyMs":${JSON.stringify(turn.lastLatencyMs)},"opponent":${this.#opponent}${shown === '' ? '' : `,${shown}`}}`;
    const headBytes = Buffer.byteLength(head);
    const body = Buffer.allocUnsafe(headBytes + history.jsonBytes + Buffer.byteLength(tail));
    body.write(head, 0);
    history.copyJson(body, headBytes);
    body.write(tail, headBytes + history.jsonBytes);
    return body;
  }
}

/** The rules as a state shows them: the time limit and the overage last. */
function rulesView(match: MatchRecord): BotState['rules'] {
  const { timeLimitMs, overageMs, ...rules } = match.rules;
  return { ...rules, timeLimitMs, overageMs };
}

function opponentView(match: MatchRecord, you: Color, rating: number): BotState['opponent'] {
  const opponent = you === 'black' ? match.white : match.black;
  return { id: opponent.id, name: opponent.name, rating };
}

/**
 * The state as `turn.you` (by default the player to move in `position`) sees it. `legalMoves` is
 * empty when it is not that player's turn.
 *
 * @example
 * botState({ match, moves: [], position: replay(match.rules, []).position, timeLimitMs: 1000, remainingOverageMs: 5000, lastLatencyMs: null, opponentRating: 1500 })
 */
export function botState(turn: TurnContext): BotState {
  const game = gameFor(turn.match.game);
  const toMove = game.toMove(turn.position);
  const you: Color = turn.you ?? toMove;
  // What the board does not say (the solo game's tokens and score), as the player may see it.
  const shown = game.shownState?.(turn.position, game.options(turn.match.rules)) ?? {};
  return {
    matchId: turn.match.id,
    game: game.id,
    you,
    board: game.boardRows(turn.position),
    legalMoves: you === toMove ? game.legalActions(turn.position) : [],
    ply: turn.moves.length + 1,
    history: turn.history?.items() ?? turn.moves.map(historyItem),
    rules: rulesView(turn.match),
    timeLimitMs: turn.timeLimitMs,
    remainingOverageMs: turn.remainingOverageMs,
    lastLatencyMs: turn.lastLatencyMs,
    opponent: opponentView(turn.match, you, turn.opponentRating),
    ...shown,
  };
}
