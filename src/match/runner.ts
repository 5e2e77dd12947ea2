import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { botState } from '../protocol/state.ts';
import {
  type Color,
  DEFAULT_RULES,
  type Direction,
  discCounts,
  isGameOver,
  mustPass,
  opponent,
  outcome,
  type Position,
  play,
} from '../reversi/index.ts';
import type {
  BotRecord,
  MatchRecord,
  MatchResult,
  MoveRecord,
  RatingRule,
  ResultReason,
} from '../store/records.ts';
import type { ArenaStore } from '../store/store.ts';
import type { MoveOutcome, PlayerFor } from './player.ts';
import { engineRules, overageSpent, type ReplayedGame, replay } from './replay.ts';

export interface MatchRunnerDeps {
  readonly store: ArenaStore;
  readonly clock: Clock;
  readonly playerFor: PlayerFor;
  readonly rate: RatingRule;
  readonly logger: Logger;
  /** Tells both players a match has started (at least once: again when a match resumes). */
  readonly announceStart?: (match: MatchRecord) => Promise<void>;
}

/** The arena passes for a side with no move; the engine accepts a pass exactly then. */
function passTurn(position: Position): Position {
  const passed = play(position, { square: 'pass' }, DEFAULT_RULES);
  if (!passed.ok) throw passed.error;
  return passed.position;
}

/** How a run of `MatchRunner.play` ended. */
export type RunEnd = 'finished' | 'already-ended' | 'missing' | 'interrupted';

/** A fault that ends a match: the bot client's kinds plus an illegal move. */
type Fault = Omit<Extract<MoveOutcome, { ok: false }>['fault'], 'reason'> & {
  readonly reason: Exclude<ResultReason, 'completed' | 'aborted'>;
};

/**
 * Plays one match to its end: asks the side to move for an action, applies it with the rules
 * engine, records each ply at once, and records the result exactly once. It resumes a match from
 * its recorded moves, so a match whose worker died finishes on another. Bot faults end the match;
 * only the arena's own failures (Redis) throw, for the queue to retry.
 */
export class MatchRunner {
  constructor(private readonly deps: MatchRunnerDeps) {}

  async play(matchId: string, signal: AbortSignal): Promise<RunEnd> {
    const { store, clock } = this.deps;
    const match = await store.startMatch(matchId, clock.now());
    if (match === null) return 'missing';
    if (match.status === 'finished' || match.status === 'aborted') return 'already-ended';
    const [black, white] = await store.getBots([match.black.id, match.white.id]);
    if (!black || !white) return this.finish(match, this.abortResult(match, 'a player no longer exists'));
    const bots: Record<Color, BotRecord> = { black, white };
    await this.deps.announceStart?.(match);

    // Each pass of this loop starts from the stored record; it repeats only when another worker
    // recorded a ply first (a job that BullMQ believed stalled), so both continue from the truth.
    for (;;) {
      const moves = await store.getMoves(matchId);
      let game: ReplayedGame;
      try {
        game = replay(match.rules, moves);
      } catch (error) {
        this.deps.logger.error({ err: error, matchId }, 'corrupt move record; aborting the match');
        return this.finish(match, this.abortResult(match, 'the move record is corrupt'));
      }
      let { position } = game;
      const { banks, lastLatency } = game;
      const rules = engineRules(match.rules);
      let resync = false;

      while (!isGameOver(position)) {
        if (signal.aborted) return 'interrupted';
        const color = position.toMove;
        const ply = moves.length + 1;
        let move: MoveRecord;
        if (mustPass(position)) {
          move = { ply, player: color, square: 'pass', flips: [], latencyMs: 0 };
          position = passTurn(position);
        } else {
          const timeoutMs = match.rules.timeLimitMs + banks[color];
          const state = botState({
            match,
            moves,
            position,
            timeLimitMs: match.rules.timeLimitMs,
            remainingOverageMs: banks[color],
            lastLatencyMs: lastLatency[color],
            opponentRating: bots[opponent(color)].rating,
          });
          const answer = await this.deps.playerFor(bots[color]).move({ state, timeoutMs, signal });
          if (signal.aborted) return 'interrupted';
          if (!answer.ok) return this.finish(match, this.faultResult(match, position, color, answer.fault));
          if (answer.latencyMs > timeoutMs) {
            const fault: Fault = {
              reason: 'timeout',
              message: `answered after ${answer.latencyMs} ms, over the ${timeoutMs} ms it had`,
              latencyMs: answer.latencyMs,
            };
            return this.finish(match, this.faultResult(match, position, color, fault));
          }
          const { action, direction } = answer.action;
          const played = play(
            position,
            { square: action, ...(direction ? { direction: direction as Direction } : {}) },
            rules,
          );
          if (!played.ok) {
            const fault: Fault = {
              reason: 'illegal-move',
              message: `${action}${direction ? ` ${direction}` : ''} is not legal: ${played.error.message}`,
              latencyMs: answer.latencyMs,
              body: JSON.stringify(answer.action).slice(0, 200),
            };
            return this.finish(match, this.faultResult(match, position, color, fault));
          }
          banks[color] -= overageSpent(answer.latencyMs, match.rules.timeLimitMs);
          lastLatency[color] = answer.latencyMs;
          move = {
            ply,
            player: color,
            square: action,
            ...(direction && match.rules.captureRule === 'single-direction' ? { direction } : {}),
            flips: played.flips,
            latencyMs: answer.latencyMs,
          };
          position = played.position;
        }
        if (!(await store.appendMove(matchId, move))) {
          resync = true;
          break;
        }
        moves.push(move);
      }
      if (resync) {
        const current = await store.getMatch(matchId);
        if (current === null || current.status !== 'running') return 'already-ended';
        continue;
      }
      const final = outcome(position, rules);
      return this.finish(match, { winner: final.winner, discs: final.discs, reason: 'completed' });
    }
  }

  private async finish(match: MatchRecord, result: MatchResult): Promise<RunEnd> {
    const ended = await this.deps.store.finishMatch(match.id, result, this.deps.clock.now(), this.deps.rate);
    return ended ? 'finished' : 'already-ended';
  }

  private faultResult(match: MatchRecord, position: Position, color: Color, fault: Fault): MatchResult {
    const { black, white } = discCounts(position);
    const { reason, ...details } = fault;
    this.deps.logger.info({ matchId: match.id, player: color, reason }, 'match ended by a fault');
    return { winner: opponent(color), discs: { black, white }, reason, fault: { player: color, ...details } };
  }

  private abortResult(match: MatchRecord, why: string): MatchResult {
    this.deps.logger.warn({ matchId: match.id, why }, 'aborting match');
    return { winner: null, discs: { black: 0, white: 0 }, reason: 'aborted' };
  }
}
