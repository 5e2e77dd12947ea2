import type { components } from '../http/openapi-types.ts';
import { boardText, type Color, legalMoves, type Position } from '../reversi/index.ts';
import type { MatchRecord, MoveRecord } from '../store/records.ts';

/**
 * The wire shapes bots see, apart from the engine's types: the state the arena sends on a bot's turn
 * (push) or serves to it (pull), and the action it answers. Defined in openapi.yaml; pinned by the
 * golden fixtures in test/fixtures/protocol.
 */
export type BotState = components['schemas']['BotState'];
export type BotAction = components['schemas']['BotAction'];
export type MatchState = components['schemas']['MatchState'];
type WireDirection = components['schemas']['Direction'];

export interface TurnContext {
  readonly match: MatchRecord;
  readonly moves: readonly MoveRecord[];
  readonly position: Position;
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
 * botState({ match, moves: [], position: initialPosition(), timeLimitMs: 1000, remainingOverageMs: 5000, lastLatencyMs: null, opponentRating: 1500 })
 */
export function botState(turn: TurnContext): BotState {
  const you: Color = turn.you ?? turn.position.toMove;
  const opponent = you === 'black' ? turn.match.white : turn.match.black;
  const { timeLimitMs, overageMs, ...rules } = turn.match.rules;
  return {
    matchId: turn.match.id,
    game: 'reversi',
    you,
    board: boardText(turn.position),
    legalMoves: you === turn.position.toMove ? legalMoves(turn.position) : [],
    ply: turn.moves.length + 1,
    history: turn.moves.map((move) => ({
      ply: move.ply,
      player: move.player,
      square: move.square,
      ...(move.direction ? { direction: move.direction as WireDirection } : {}),
    })),
    rules: { ...rules, timeLimitMs, overageMs },
    timeLimitMs: turn.timeLimitMs,
    remainingOverageMs: turn.remainingOverageMs,
    lastLatencyMs: turn.lastLatencyMs,
    opponent: { id: opponent.id, name: opponent.name, rating: turn.opponentRating },
  };
}
