/**
 * From a game's position to the wire shapes bots see: the state the arena sends on a bot's turn
 * (push) or serves to it (pull). The match's game (src/game) says what the board and the legal
 * actions are; the shapes are the contract's (src/contract); pinned by the golden fixtures in
 * test/fixtures/protocol.
 */

import type { BotState, Direction as WireDirection } from '../contract/index.ts';
import { gameFor } from '../game/index.ts';
import type { Color, MatchRecord, MoveRecord } from '../store/records.ts';

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
  const opponent = you === 'black' ? turn.match.white : turn.match.black;
  const { timeLimitMs, overageMs, ...rules } = turn.match.rules;
  return {
    matchId: turn.match.id,
    game: game.id,
    you,
    board: game.boardRows(turn.position),
    legalMoves: you === toMove ? game.legalActions(turn.position) : [],
    ply: turn.moves.length + 1,
    history: turn.moves.map((move) => ({
      ply: move.ply,
      player: move.player,
      square: move.square,
      ...(move.direction ? { direction: move.direction as WireDirection } : {}),
      ...(move.opening ? { opening: true as const } : {}),
    })),
    rules: { ...rules, timeLimitMs, overageMs },
    timeLimitMs: turn.timeLimitMs,
    remainingOverageMs: turn.remainingOverageMs,
    lastLatencyMs: turn.lastLatencyMs,
    opponent: { id: opponent.id, name: opponent.name, rating: turn.opponentRating },
  };
}
