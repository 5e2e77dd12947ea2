import type { Logger } from 'pino';
import type { BotClient } from '../bot-client/index.ts';
import type { components } from '../contract/index.ts';
import { ConflictError, NotFoundError, PermissionError } from '../model/errors.ts';
import { type BotRecord, type DeclineReason, type MatchRecord, queueClassOf } from '../model/records.ts';
import type { MatchQueue } from '../queue/match-queue.ts';
import type { ChallengeAnswer } from '../store/match-store.ts';
import { challengedOf, challengerOf } from '../store/match-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock } from '../support/clock.ts';
import { actsFor, type Principal } from './principal.ts';

export interface ChallengeServiceDeps {
  readonly stores: Pick<Stores, 'bots' | 'matches'>;
  readonly queue: MatchQueue;
  readonly clock: Clock;
  /** Calls push bots that ask for their challenges; without it they answer through the API alone. */
  readonly client?: Pick<BotClient, 'askChallenge'>;
  readonly logger?: Logger;
}

/** How long a push bot has to answer the arena's `challenge` call (it may still answer through the API). */
const ASK_TIMEOUT_MS = 10_000;

/** Pending challenges read per sweep of the overdue ones. */
const SWEPT_AT_ONCE = 500;

/**
 * Challenges that wait for their target's answer (a bot whose `challenges` is `ask`): accepted, a
 * challenge is queued and played as any other; declined or left unanswered, it ends (`declined`,
 * `expired`), neither a fault nor rated. The target answers with its token or its owner's, through
 * the API; a push bot is also asked with a signed call to its URL, and its answer decides.
 */
export class ChallengeService {
  constructor(private readonly deps: ChallengeServiceDeps) {}

  /** The target (or its owner) takes the challenge: it is queued. */
  async accept(principal: Principal | null, matchId: string): Promise<MatchRecord> {
    return this.#answer(principal, matchId, { kind: 'accept' });
  }

  /** The target (or its owner) declines the challenge, for `reason`. */
  async decline(principal: Principal | null, matchId: string, reason: DeclineReason): Promise<MatchRecord> {
    return this.#answer(principal, matchId, { kind: 'decline', reason });
  }

  /**
   * Ends a pending challenge whose time is up (the delayed job, the workers' sweep); true when this
   * call ended it. One answered meanwhile is left as it is.
   */
  async expire(matchId: string): Promise<boolean> {
    const match = await this.deps.stores.matches.getMatch(matchId);
    if (match?.status !== 'pending') return false;
    if (match.answerBy !== undefined && this.deps.clock.now() < match.answerBy) return false;
    const outcome = await this.deps.stores.matches.answerChallenge(
      matchId,
      { kind: 'expire' },
      this.deps.clock.now(),
    );
    return outcome.answered;
  }

  /** Expires every pending challenge past its time: the backstop of the delayed jobs. */
  async expireOverdue(): Promise<number> {
    let expired = 0;
    for (const id of await this.deps.stores.matches.matchIdsInStatus('pending', SWEPT_AT_ONCE)) {
      if (await this.expire(id)) expired++;
    }
    return expired;
  }

  /**
   * Asks a push bot, now, whether it takes `match` (a pending challenge aimed at it); its answer
   * decides as if it had posted it. A failed call leaves the challenge pending, for the bot to
   * answer through the API. Runs in the background: the challenge was answered 202 already.
   */
  askPushBot(match: MatchRecord, target: BotRecord): void {
    const { client, clock, stores, logger } = this.deps;
    if (client === undefined || target.url === null || match.answerBy === undefined) return;
    const call = async () => {
      const challengerId = challengerOf(match);
      const challenger = challengerId === null ? null : await stores.bots.getBot(challengerId);
      if (challenger === null) return;
      const asked: components['schemas']['ChallengeCall'] = {
        type: 'challenge',
        ...challengeOffer(match, challenger, target),
      };
      const timeoutMs = Math.max(1, Math.min(ASK_TIMEOUT_MS, match.answerBy! - clock.now()));
      const outcome = await client.askChallenge({
        url: target.url!,
        webhookSecret: target.webhookSecret,
        call: asked,
        timeoutMs,
      });
      if (!outcome.ok) {
        logger?.info(
          { matchId: match.id, fault: outcome.fault.reason },
          'a bot asked of a challenge did not answer',
        );
        return;
      }
      const answer: ChallengeAnswer = outcome.answer.accept
        ? { kind: 'accept' }
        : { kind: 'decline', reason: outcome.answer.reason ?? 'generic' };
      await this.#apply(match.id, answer);
    };
    call().catch((error: unknown) =>
      logger?.warn({ err: error, matchId: match.id }, 'asking a bot of a challenge failed'),
    );
  }

  async #answer(principal: Principal | null, matchId: string, answer: ChallengeAnswer): Promise<MatchRecord> {
    const { stores, clock } = this.deps;
    const match = await stores.matches.getMatch(matchId);
    if (match === null) throw new NotFoundError('matches/not-found', `No match has the id ${matchId}.`);
    const challenger = challengerOf(match);
    const target = challenger === null ? null : await stores.bots.getBot(challengedOf(match, challenger));
    if (target === null || !actsFor(principal, target)) {
      throw new PermissionError(
        'matches/not-challenged',
        "Only the challenged bot's token, its owner's or the admin's may answer a challenge.",
      );
    }
    if (match.status === 'pending' && match.answerBy !== undefined && clock.now() >= match.answerBy) {
      await this.expire(matchId);
      throw notPending({ ...match, status: 'expired' });
    }
    return this.#apply(matchId, answer);
  }

  /** Applies an answer once; an accepted challenge is queued as challenges are. */
  async #apply(matchId: string, answer: ChallengeAnswer): Promise<MatchRecord> {
    const { stores, queue, clock } = this.deps;
    const outcome = await stores.matches.answerChallenge(matchId, answer, clock.now());
    if (!outcome.answered) {
      if (outcome.match === null)
        throw new NotFoundError('matches/not-found', `No match has the id ${matchId}.`);
      throw notPending(outcome.match);
    }
    const { match } = outcome;
    if (match.status === 'queued') {
      const players = await stores.bots.getBots([match.black.id, match.white.id]);
      // Stored as queued: should the queue not answer now, the workers' reconcile queues it.
      await queue.enqueue(match.id, queueClassOf(match, players)).catch(() => {});
    }
    return match;
  }
}

function notPending(match: MatchRecord): ConflictError {
  return new ConflictError(
    'matches/not-pending',
    `The challenge is ${match.status}: only a pending challenge can be answered.`,
  );
}

/**
 * A pending challenge as its target is told of it: the `challenge` event of a bot that asks
 * (`BotChallengeEvent`), and the body of the call to a push bot that asks (`ChallengeCall`).
 */
export function challengeOffer(
  match: MatchRecord,
  challenger: BotRecord,
  target: BotRecord,
): components['schemas']['BotChallengeEvent'] {
  return {
    matchId: match.id,
    you: match.black.id === target.id ? 'black' : 'white',
    challenger: {
      id: challenger.id,
      name: challenger.name,
      rating: Math.round(challenger.rating * 10) / 10,
      owner: challenger.owner === null ? null : { ...challenger.owner },
    },
    rules: match.rules,
    answerBy: new Date(match.answerBy!).toISOString(),
  };
}
