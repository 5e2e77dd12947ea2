import type { BotRecord, MatchRecord } from '../model/records.ts';
import type { MatchQueue } from '../queue/match-queue.ts';
import { openings } from '../reversi/index.ts';
import type { NewRound, RoundGame, TournamentRecord } from '../store/tournament-store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { newId } from '../support/ids.ts';
import { enqueueStored, queuedMatch, withOpening } from './matches.ts';
import type { PlannedGame } from './tournament-plan.ts';

export interface RoundMakerDeps {
  readonly queue: MatchQueue;
  readonly clock: Clock;
  readonly random: RandomBytes;
  /** Hears a match that was stored but could not be queued (the workers' reconciler queues it later). */
  readonly onEnqueueFailure?: (matchId: string, error: unknown) => void;
}

/**
 * Turns a planned round into the records to store (the round and its queued matches) and, once it
 * is stored, queues the matches. A tournament's match is an ordinary match: the same record as
 * `POST /v1/matches` makes (its rules are the tournament's, with the pairing's opening set the way
 * `MatchService` sets one, by `withOpening`), marked with `tournament: { id, round }`. Matches are
 * created here, not through `MatchService.create`, because a round must be stored at once with
 * its matches, exactly once (see TournamentStore.addRound).
 */
export class RoundMaker {
  constructor(private readonly deps: RoundMakerDeps) {}

  /** A balanced opening's id, drawn uniformly from the shipped ones. */
  readonly drawOpening = (): string => {
    const all = openings();
    const bytes = this.deps.random(4);
    const draw = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
    return all[draw % all.length]!.id;
  };

  /**
   * The round `number` of `tournament` with a new queued match for each game played. `bots` must
   * hold every bot the games name (their names go on the matches).
   */
  build(
    tournament: TournamentRecord,
    number: number,
    bye: string | null,
    games: readonly PlannedGame[],
    bots: ReadonlyMap<string, BotRecord>,
  ): NewRound {
    const now = this.deps.clock.now();
    const matches: MatchRecord[] = [];
    const roundGames: RoundGame[] = games.map((game) => {
      if (!game.played) return { match: null, white: game.white, black: game.black, opening: null };
      const player = (id: string) => ({ id, name: bots.get(id)?.name ?? id });
      const match = queuedMatch({
        id: newId('match', now, this.deps.random),
        black: player(game.black),
        white: player(game.white),
        rules: withOpening(tournament.rules, game.opening ?? undefined),
        rated: tournament.rated,
        createdBy: 'admin',
        createdAt: now,
        tournament: { id: tournament.id, round: number },
      });
      matches.push(match);
      return { match: match.id, white: game.white, black: game.black, opening: game.opening };
    });
    return { round: { number, bye, games: roundGames }, matches };
  }

  /** Queues a stored round's matches; one that cannot be queued now is left to the reconciler. */
  async enqueue(round: NewRound): Promise<void> {
    for (const match of round.matches) await enqueueStored(this.deps, match.id);
  }
}
