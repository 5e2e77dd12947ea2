import type { BotClient } from '../bot-client/index.ts';
import type { Config } from '../config.ts';
import type { BotCheck } from '../contract/index.ts';
import { gameFor } from '../game/index.ts';
import { HOUSE_BOTS } from '../house/roster.ts';
import { ConflictError, NotFoundError } from '../model/errors.ts';
import { judgeAnswer } from '../model/judge.ts';
import type { MatchRecord } from '../model/records.ts';
import { botState } from '../protocol/state.ts';
import type { Stores } from '../store/store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { newId } from '../support/ids.ts';
import { ARENA_GAME, ratedRules } from './matches.ts';

export interface BotCheckDeps {
  readonly stores: Pick<Stores, 'bots'>;
  readonly client: Pick<BotClient, 'callBot'>;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly limits: Config['limits'];
}

/** The opponent named in the sample state. */
const SAMPLE_OPPONENT = HOUSE_BOTS.find((bot) => bot.engine === 'greedy')!;

/**
 * Calls a push bot once, now, with the first turn of a rated game (signed, under the rated time
 * control), and judges its answer with the runner's own rules, so the report says exactly what a
 * match would have recorded. Stores nothing.
 */
export class BotChecker {
  constructor(private readonly deps: BotCheckDeps) {}

  async check(botId: string): Promise<BotCheck> {
    const { stores, client, clock, random, limits } = this.deps;
    const bot = await stores.bots.getBot(botId);
    if (bot === null) throw new NotFoundError('bots/not-found', `No bot has the id ${botId}.`);
    if (bot.url === null) {
      throw new ConflictError(
        'bots/not-push',
        'Only a push bot can be checked: this bot has no URL. A pull bot reads GET /v1/matches/{id}/state.',
      );
    }
    const rules = ratedRules(limits);
    const game = gameFor(ARENA_GAME.id);
    const options = game.options(rules);
    const position = game.initialState(options);
    const you = game.toMove(position);
    const me = { id: bot.id, name: bot.name };
    const opponent = { id: SAMPLE_OPPONENT.id, name: SAMPLE_OPPONENT.name };
    const now = clock.now();
    const sample: MatchRecord = {
      id: newId('match', now, random),
      game: game.id,
      black: you === 'black' ? me : opponent,
      white: you === 'white' ? me : opponent,
      rules,
      rated: false,
      status: 'running',
      createdBy: bot.id,
      createdAt: now,
      startedAt: now,
      finishedAt: null,
      moveCount: 0,
      result: null,
      ratings: null,
    };
    const state = botState({
      match: sample,
      moves: [],
      position,
      timeLimitMs: rules.timeLimitMs,
      remainingOverageMs: rules.overageMs,
      lastLatencyMs: null,
      opponentRating: bot.rating,
    });
    const timeoutMs = rules.timeLimitMs + rules.overageMs;
    const answer = await client.callBot({ url: bot.url, webhookSecret: bot.webhookSecret, state, timeoutMs });
    const judged = judgeAnswer(game, options, position, answer, timeoutMs);
    const status = answer.ok ? (answer.status ?? null) : (answer.fault.status ?? null);
    return {
      url: bot.url,
      state,
      timeoutMs,
      status,
      latencyMs: answer.ok ? answer.latencyMs : answer.fault.latencyMs,
      action: answer.ok ? answer.action : null,
      legal: answer.ok ? judged.ok || judged.fault.reason !== 'illegal-move' : null,
      fault: judged.ok ? null : { player: you, ...judged.fault },
    };
  }
}
