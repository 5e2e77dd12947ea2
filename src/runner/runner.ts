import type { Logger } from 'pino';
import type { BotState } from '../contract/index.ts';
import {
  type AnyGame,
  type GameAction,
  gameFor,
  otherSide,
  recordedChoices,
  UnknownGameError,
} from '../game/index.ts';
import { type EndingFault, faultResult } from '../model/fault-result.ts';
import { seatedSides } from '../model/finish-plan.ts';
import { judgeAnswer } from '../model/judge.ts';
import type { LiveTurn } from '../model/live-events.ts';
import { liveTurn } from '../model/live-turn.ts';
import type { PausePolicy } from '../model/pause.ts';
import {
  abortedResult,
  type BotRecord,
  type Color,
  type MatchRecord,
  type MatchResult,
  type MoveRecord,
  matchEnded,
  type RatingRule,
} from '../model/records.ts';
import { overageSpent, ReplayError, type ReplayedGame, replay } from '../model/replay.ts';
import { botState, StateWriter, type TurnContext, WireHistory } from '../protocol/state.ts';
import { CorruptRecordError } from '../store/match-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock } from '../support/clock.ts';
import { MoveRecorder } from './move-recorder.ts';
import type { MoveRequest, Player, PlayerAnswer, PlayerFor } from './player.ts';

export interface MatchRunnerDeps {
  readonly stores: Pick<Stores, 'bots' | 'matches'>;
  readonly clock: Clock;
  readonly playerFor: PlayerFor;
  readonly rate: RatingRule;
  readonly logger: Logger;
  /** Tells both players a match has started (at least once: again when a match resumes). */
  readonly announceStart?: (match: MatchRecord) => Promise<void>;
  /** When a bot's faults pause it, and for how long (by default, never). */
  readonly pauses?: PausePolicy;
  /**
   * Called after each move with the arena's own time for it: everything from the start of the
   * turn to the move being sent to the store (its write overlaps the next turn), less the time
   * spent waiting for the bot's answer.
   */
  readonly onMoveTimed?: (timing: { readonly latencyMs: number; readonly overheadMs: number }) => void;
  /** Resolves when a bot's answer may be handled (./pacer.ts): a worker's matches share its loop. */
  readonly pace?: () => Promise<void>;
}

/** What a run sends its bots: the history they see, and each side's state writer. */
interface RunWire {
  readonly history: WireHistory;
  readonly writers: Record<Color, StateWriter>;
}

/**
 * A turn as a player is asked it, its state made only if the player wants it. A class, not an
 * object of closures: tsx (which `npm start` runs) names every closure it makes, and two a move
 * cost the worker 2.3% of its time.
 */
class AskedTurn implements MoveRequest {
  readonly matchId: string;
  readonly ply: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly deadline?: number;
  readonly match?: MoveRequest['match'];

  constructor(
    private readonly turn: TurnContext,
    readonly you: Color,
    private readonly wire: RunWire,
    { timeoutMs, signal, deadline }: { timeoutMs: number; signal: AbortSignal; deadline: number | null },
    held: MoveRequest['match'],
  ) {
    this.matchId = turn.match.id;
    this.ply = turn.moves.length + 1;
    this.timeoutMs = timeoutMs;
    this.signal = signal;
    if (deadline !== null) this.deadline = deadline;
    if (held !== undefined) this.match = held;
  }

  state(): BotState {
    return botState(this.turn);
  }

  body(): Buffer {
    return this.wire.writers[this.you].body(this.turn, this.wire.history);
  }
}
/** A match's game and the options its rules name: what every ply is played under. */
interface Ruleset {
  readonly game: AnyGame;
  readonly options: unknown;
  /** The opening's actions, which the arena plays as the match's first plies (see `Game.openingActions`). */
  readonly opening: readonly GameAction[];
}

type Turn =
  | {
      readonly kind: 'move';
      readonly move: MoveRecord;
      /** The game's position after the move. */
      readonly position: unknown;
      readonly botTimeMs: number;
      /** For a ply the store already holds (see RecordedAnswer): the turn after it, as recorded. */
      readonly recordedNext?: LiveTurn;
    }
  | { readonly kind: 'fault'; readonly fault: EndingFault }
  | { readonly kind: 'interrupted' }
  /** The store holds a ply this run cannot play on from: read the record again. */
  | { readonly kind: 'resync' };

/** An opening the game refuses, found while playing it: the record is corrupt. */
class UnplayableOpening extends Error {}

/**
 * Ply `ply` of the match's opening, played by the arena itself: no player is asked, no clock runs
 * (latency 0), and the ply is marked as the opening's. Throws when the action does not play, which
 * the game's `options` already ruled out for a stored match (a corrupt record otherwise).
 */
function openingTurn({ game, options, opening }: Ruleset, ply: number, position: unknown): Turn {
  const action = opening[ply - 1]!;
  const played = game.apply(position, action, options);
  if (!played.ok) {
    throw new UnplayableOpening(`opening ply ${ply} (${action.action}) does not play: ${played.message}`);
  }
  const move: MoveRecord = {
    ply,
    player: game.toMove(position),
    square: action.action,
    flips: played.flips,
    latencyMs: 0,
    opening: true,
  };
  return { kind: 'move', move, position: played.state, botTimeMs: 0 };
}

/** How a run of `MatchRunner.play` ended. */
export type RunEnd = 'finished' | 'already-ended' | 'interrupted';

/**
 * A match no attempt can play: it vanished, or its record is corrupt (a game or rules this arena
 * refuses, moves that do not replay, an opening that does not play). The runner has already marked
 * a stored one aborted; the worker fails its job at once rather than retrying it.
 */
export class UnplayableMatchError extends Error {
  override readonly name = 'UnplayableMatchError';

  constructor(
    readonly matchId: string,
    readonly why: string,
    options?: ErrorOptions,
  ) {
    super(`match ${matchId} cannot be played: ${why}`, options);
  }
}

/**
 * Plays one match to its end: plays the opening's plies itself (when its rules name one), then asks
 * the side to move for an action, applies it with the match's game (src/game), records each ply at
 * once, and records the result exactly once. It resumes a match from its recorded moves (mid-opening
 * too), so a match whose worker died finishes on another. Bot faults end the match; only the
 * arena's own failures (Redis) throw, for the queue to retry.
 */
export class MatchRunner {
  constructor(private readonly deps: MatchRunnerDeps) {}

  async play(matchId: string, signal: AbortSignal): Promise<RunEnd> {
    const { stores, clock } = this.deps;
    const match = await stores.matches.startMatch(matchId, clock.now());
    if (match === null) throw new UnplayableMatchError(matchId, 'no match has this id (it vanished)');
    if (matchEnded(match.status)) return 'already-ended';
    let ruleset: Ruleset;
    try {
      const game = gameFor(match.game);
      const options = game.options(match.rules);
      ruleset = { game, options, opening: game.openingActions(options) };
    } catch (error) {
      // A record naming a game this arena does not play, or options that game refuses: corrupt.
      const why = error instanceof UnknownGameError ? 'its game is not played here' : 'its rules are invalid';
      return this.unplayable(match, why, error);
    }
    const [black, white] = await stores.bots.getBots([match.black.id, match.white.id]);
    if (!black || !white) return this.finish(match, this.abortResult(match, 'a player no longer exists'));
    const bots: Record<Color, BotRecord> = { black, white };
    await this.deps.announceStart?.(match);

    // Each pass starts from the stored record; it repeats only when another worker recorded a ply
    // first (a job BullMQ believed stalled), so both go on from the truth.
    for (;;) {
      let moves: MoveRecord[];
      let game: ReplayedGame;
      try {
        moves = await stores.matches.getMoves(matchId);
        game = replay(match.rules, moves, ruleset.game);
      } catch (error) {
        // A Redis error is the arena's own and worth a retry; a record that does not replay is not.
        if (error instanceof CorruptRecordError || error instanceof ReplayError) {
          return this.unplayable(match, 'its move record is corrupt', error);
        }
        throw error;
      }
      let end: RunEnd | 'resync';
      try {
        end = await this.playFrom(match, ruleset, bots, moves, game, signal);
      } catch (error) {
        if (error instanceof UnplayableOpening)
          return this.unplayable(match, 'its opening does not play', error);
        throw error;
      }
      if (end !== 'resync') return end;
      const current = await stores.matches.getMatch(matchId);
      if (current === null || current.status !== 'running') return 'already-ended';
    }
  }

  /** Plays on from a replayed record until the end, a fault, an interruption or a lost race. */
  private async playFrom(
    match: MatchRecord,
    ruleset: Ruleset,
    bots: Record<Color, BotRecord>,
    moves: MoveRecord[],
    game: ReplayedGame,
    signal: AbortSignal,
  ): Promise<RunEnd | 'resync'> {
    const recorder = new MoveRecorder(this.deps.stores.matches, match.id);
    const history = new WireHistory(moves);
    // Each side's state, its parts that a run does not change serialized once.
    const writers: Record<Color, StateWriter> = {
      black: new StateWriter(match, 'black'),
      white: new StateWriter(match, 'white'),
    };
    const players = { black: this.deps.playerFor(bots.black), white: this.deps.playerFor(bots.white) };
    const clocks = { banks: game.banks, lastLatency: game.lastLatency };
    let { position } = game;
    // Spectators hear of the turn this run starts with (a resumed turn's clock starts again);
    // each recorded move then tells of the turn after it.
    let next = this.liveTurn(match, ruleset, moves.length + 1, position, clocks);
    if (next.deadline !== null) await this.deps.stores.matches.announceTurn(match.id, next);
    while (!ruleset.game.isOver(position)) {
      if (signal.aborted) {
        await recorder.flush();
        return 'interrupted';
      }
      const turnStarted = performance.now();
      let turn: Turn;
      if (moves.length < ruleset.opening.length) {
        turn = openingTurn(ruleset, moves.length + 1, position);
      } else {
        const player = players[ruleset.game.toMove(position)];
        if (player.readsStoredMoves && !(await recorder.flush())) return 'resync';
        turn = await this.takeTurn(
          match,
          ruleset,
          player,
          bots,
          moves,
          { history, writers },
          position,
          clocks,
          signal,
          next,
          recorder.runId,
        );
      }
      if (turn.kind === 'resync') return 'resync';
      if (turn.kind === 'interrupted') {
        await recorder.flush();
        return 'interrupted';
      }
      if (turn.kind === 'fault') {
        if (!(await recorder.flush())) return 'resync';
        return this.finish(match, this.faultResult(match, ruleset, moves, position, turn.fault));
      }
      if (turn.recordedNext) {
        // Recorded by the API through the turn this run opened, with the turn after it.
        recorder.adopt();
        next = turn.recordedNext;
      } else {
        next = this.liveTurn(match, ruleset, turn.move.ply + 1, turn.position, clocks);
        if (!(await recorder.record(turn.move, next))) return 'resync';
      }
      moves.push(turn.move);
      history.push(turn.move);
      position = turn.position;
      this.deps.onMoveTimed?.({
        latencyMs: turn.move.latencyMs,
        overheadMs: performance.now() - turnStarted - turn.botTimeMs,
      });
    }
    if (!(await recorder.flush())) return 'resync';
    const final = ruleset.game.outcome(position, ruleset.options);
    return this.finish(match, { winner: final.winner, discs: final.counts, reason: 'completed' });
  }

  /** One ply: a pass for a side with no move, else the side's answer judged by the game. */
  private async takeTurn(
    match: MatchRecord,
    { game, options }: Ruleset,
    player: Player,
    bots: Record<Color, BotRecord>,
    moves: readonly MoveRecord[],
    wire: RunWire,
    position: unknown,
    clocks: Pick<ReplayedGame, 'banks' | 'lastLatency'>,
    signal: AbortSignal,
    { deadline }: LiveTurn,
    run: string,
  ): Promise<Turn> {
    const color = game.toMove(position);
    const ply = moves.length + 1;
    if (game.mustPass(position)) {
      // The arena passes for a side with no move; a game accepts a pass exactly then.
      const move: MoveRecord = { ply, player: color, square: 'pass', flips: [], latencyMs: 0 };
      return { kind: 'move', move, position: game.pass(position), botTimeMs: 0 };
    }
    const { timeLimitMs } = match.rules;
    const timeoutMs = timeLimitMs + clocks.banks[color];
    const asked = performance.now();
    let answer: PlayerAnswer;
    try {
      const turn: TurnContext = {
        match,
        moves,
        position,
        timeLimitMs,
        remainingOverageMs: clocks.banks[color],
        lastLatencyMs: clocks.lastLatency[color],
        opponentRating: bots[otherSide(color)].rating,
        history: wire.history,
      };
      answer = await this.ask(player, turn, color, wire, { timeoutMs, signal, deadline, run, bots });
    } catch (error) {
      // A player told to stop may answer by throwing (the bot client rethrows the abort).
      if (signal.aborted) return { kind: 'interrupted' };
      throw error;
    }
    const botTimeMs = performance.now() - asked;
    if (this.deps.pace) await this.deps.pace();
    if (signal.aborted) return { kind: 'interrupted' };
    const judged = judgeAnswer(game, options, position, answer, timeoutMs);
    const recorded = 'recorded' in answer ? answer.recorded : undefined;
    // A recorded ply was judged by the API against this same record: one that does not play here
    // means the record moved on without this run.
    if (!judged.ok) return recorded ? { kind: 'resync' } : { kind: 'fault', fault: judged.fault };
    const { latencyMs } = judged;
    const { action } = judged.action;
    clocks.banks[color] -= overageSpent(latencyMs, timeLimitMs);
    clocks.lastLatency[color] = latencyMs;
    const move: MoveRecord = {
      ply,
      player: color,
      square: action,
      ...recordedChoices(game, options, judged.action),
      flips: judged.flips,
      latencyMs,
    };
    return {
      kind: 'move',
      move,
      position: judged.position,
      botTimeMs,
      ...(recorded ? { recordedNext: recorded.next } : {}),
    };
  }

  /**
   * Asks `player` for its move with the state it sees, made as the player needs it (a push bot is
   * sent its bytes alone). Not async itself: the state and its bytes go with the request and are
   * let go once it is sent, rather than held in the turn's suspended frame through the bot's think
   * time, where each young-generation collection copied them again.
   */
  private ask(
    player: Player,
    turn: TurnContext,
    you: Color,
    wire: RunWire,
    asked: {
      timeoutMs: number;
      signal: AbortSignal;
      deadline: number | null;
      run: string;
      bots: Record<Color, BotRecord>;
    },
  ): Promise<PlayerAnswer> {
    const { run, bots } = asked;
    const ratings = { black: bots.black.rating, white: bots.white.rating };
    const held = player.readsStoredMoves
      ? { record: turn.match, moves: turn.moves, ratings, run }
      : undefined;
    return player.move(new AskedTurn(turn, you, wire, asked, held));
  }

  /** The turn starting now at `ply` from `position`, as spectators see it (see live-turn.ts). */
  private liveTurn(
    match: MatchRecord,
    { game, opening }: Ruleset,
    ply: number,
    position: unknown,
    clocks: Pick<ReplayedGame, 'banks' | 'lastLatency'>,
  ): LiveTurn {
    const { timeLimitMs } = match.rules;
    const now = this.deps.clock.now();
    return liveTurn({ game, position, ply, openingPlies: opening.length, timeLimitMs, ...clocks, now });
  }

  private async finish(match: MatchRecord, result: MatchResult): Promise<RunEnd> {
    const { stores, clock, rate, pauses } = this.deps;
    const ended = await stores.matches.finishMatch(match.id, result, clock.now(), rate, pauses);
    return ended ? 'finished' : 'already-ended';
  }

  private faultResult(
    match: MatchRecord,
    { game, options }: Ruleset,
    moves: readonly MoveRecord[],
    position: unknown,
    fault: EndingFault,
  ): MatchResult {
    const player = game.toMove(position);
    // A one-player game seats one bot on both sides: its fault hands nobody the win.
    const opponentWins = seatedSides(match).length > 1;
    const result = faultResult(moves, player, fault, game.counts(position, options), opponentWins);
    this.deps.logger.info({ matchId: match.id, player, reason: result.reason }, 'match ended by a fault');
    return result;
  }

  private abortResult(match: MatchRecord, why: string): MatchResult {
    this.deps.logger.warn({ matchId: match.id, why }, 'aborting match');
    return abortedResult();
  }

  /** Marks a match whose record is corrupt aborted, then throws: no retry can play it. */
  private async unplayable(match: MatchRecord, why: string, cause: unknown): Promise<never> {
    await this.finish(match, abortedResult());
    throw new UnplayableMatchError(match.id, why, { cause });
  }
}
