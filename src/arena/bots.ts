import { ConflictError, InvalidRequestError, NotFoundError, PermissionError } from '../model/errors.ts';
import type { BotRecord, ChallengePolicy, Page, PlayerRef, RatingHistoryEntry } from '../model/records.ts';
import { ipLiteralHost, isPublicAddress } from '../net/address-policy.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { BotQuery } from '../store/bot-store.ts';
import type { Stores } from '../store/store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { newId } from '../support/ids.ts';
import { checkName } from './names.ts';
import { type Principal, requireActorFor, requireAdmin } from './principal.ts';
import { hashToken, newBotToken, newWebhookSecret } from './secrets.ts';

export interface BotServiceDeps {
  readonly stores: Pick<Stores, 'bots' | 'ratings'>;
  /** Where owners are read; without it (the benches), bots are registered without owners. */
  readonly accounts?: Pick<AccountStore, 'getAccount'>;
  /** The most active bots one account may have. */
  readonly maxBotsPerAccount?: number;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly startingRating: number;
  readonly allowPrivateBotUrls: boolean;
}

export interface BotSecrets {
  readonly token: string;
  readonly webhookSecret: string | null;
}

/** What a bot's owner, or the bot itself, may set about the games it plays. */
export interface BotSettings {
  /** See BotRecord.challenges; `acceptsChallenges` is its older name (true: accept, false: refuse). */
  readonly challenges?: ChallengePolicy;
  readonly acceptsChallenges?: boolean;
  /** See BotRecord.ratedPlay. */
  readonly ratedPlay?: boolean;
  /** See BotRecord.slowPool. */
  readonly slowPool?: boolean;
}

/** The challenge policy `settings` name, by either name; `challenges` wins when both are given. */
function challengePolicy(settings: BotSettings): ChallengePolicy | undefined {
  if (settings.challenges !== undefined) return settings.challenges;
  if (settings.acceptsChallenges === undefined) return undefined;
  return settings.acceptsChallenges ? 'accept' : 'refuse';
}

/**
 * Registering, changing and retiring bots. Callers pass values already parsed at the edge; this
 * checks what only the arena knows (names taken, who may act, which URLs it may call). A bot's
 * owner (the account that registered it) may do for it all that its own token may.
 */
export class BotService {
  constructor(private readonly deps: BotServiceDeps) {}

  /**
   * Registers a bot; with an account's principal, owned by that account (within its cap of active
   * bots). Anonymous registration works as it always did.
   */
  async register(
    input: BotSettings & {
      name: string;
      description?: string;
      url?: string;
      /** Where the request came from (see BotRecord.registeredFrom). */
      origin?: string;
    },
    principal: Principal | null = null,
  ): Promise<{
    bot: BotRecord;
    secrets: BotSecrets;
  }> {
    const { stores, clock, random } = this.deps;
    checkName(input.name);
    const owner = await this.#ownerOf(principal);
    const url = input.url === undefined ? null : this.checkUrl(input.url);
    const secrets: BotSecrets = {
      token: newBotToken(random),
      webhookSecret: url === null ? null : newWebhookSecret(random),
    };
    const now = clock.now();
    const id = newId('bot', now, random);
    await stores.bots.createBot(
      {
        id,
        name: input.name,
        description: input.description ?? null,
        url,
        tokenHash: hashToken(secrets.token),
        webhookSecret: secrets.webhookSecret,
        createdAt: now,
        rating: this.deps.startingRating,
        challenges: challengePolicy(input) ?? 'accept',
        ...(input.ratedPlay === undefined ? {} : { ratedPlay: input.ratedPlay }),
        ...(owner === null ? {} : { owner }),
        ...(input.origin === undefined ? {} : { registeredFrom: input.origin }),
      },
      this.deps.maxBotsPerAccount === undefined ? {} : { maxOwnedBots: this.deps.maxBotsPerAccount },
    );
    return { bot: await this.get(id), secrets };
  }

  /** The account registering a bot, when an account's principal does; anyone else registers none. */
  async #ownerOf(principal: Principal | null): Promise<PlayerRef | null> {
    if (principal?.kind !== 'account' || this.deps.accounts === undefined) return null;
    const account = await this.deps.accounts.getAccount(principal.accountId);
    if (account === null || account.status !== 'active') {
      throw new ConflictError('accounts/closed', 'The account is closed: it registers no bots.');
    }
    return { id: account.id, name: account.name };
  }

  async get(id: string): Promise<BotRecord> {
    const bot = await this.deps.stores.bots.getBot(id);
    if (bot === null) throw new NotFoundError('bots/not-found', `No bot has the id ${id}.`);
    return bot;
  }

  ratingHistory(id: string, limit: number): Promise<RatingHistoryEntry[]> {
    return this.deps.stores.ratings.ratingHistory(id, limit);
  }

  list(query: BotQuery): Promise<Page<BotRecord>> {
    return this.deps.stores.bots.listBots(query);
  }

  async update(
    principal: Principal | null,
    id: string,
    changes: BotSettings & { name?: string; description?: string | null; url?: string | null },
  ): Promise<{ bot: BotRecord; webhookSecret: string | null }> {
    const current = await this.get(id);
    requireActorFor(principal, current, 'change this bot');
    notGuest(notHouse(current, 'changed'), 'changed');
    if (changes.name !== undefined) checkName(changes.name);
    const url = changes.url === undefined || changes.url === null ? changes.url : this.checkUrl(changes.url);
    // A pull bot that becomes a push bot needs a signing secret; a pull bot keeps none.
    let webhookSecret: string | null | undefined;
    if (url === null) webhookSecret = null;
    else if (url !== undefined && current.webhookSecret === null)
      webhookSecret = newWebhookSecret(this.deps.random);
    // A change never lifts a pause: a bot that faults on purpose would send one to be paired again.
    const { acceptsChallenges: _alias, ...rest } = changes;
    const challenges = challengePolicy(changes);
    const bot = await this.deps.stores.bots.updateBot(id, {
      ...rest,
      url,
      webhookSecret,
      ...(challenges === undefined ? {} : { challenges }),
    });
    if (bot === null) throw new NotFoundError('bots/not-found', `No bot has the id ${id}.`);
    return { bot, webhookSecret: webhookSecret ?? null };
  }

  /** The admin ends a bot's matchmaking pause now; nobody else may (see src/model/pause.ts). */
  async liftPause(principal: Principal | null, id: string): Promise<BotRecord> {
    requireAdmin(principal);
    const bot = await this.deps.stores.bots.endPause(id, this.deps.clock.now());
    if (bot === null) throw new NotFoundError('bots/not-found', `No bot has the id ${id}.`);
    return bot;
  }

  async retire(principal: Principal | null, id: string): Promise<void> {
    requireActorFor(principal, await this.get(id), 'retire this bot');
    await this.deps.stores.bots.retireBot(id);
  }

  /** New secrets for a bot: its own token, the admin, or its owner, who so recovers a lost token. */
  async rotateSecrets(principal: Principal | null, id: string): Promise<BotSecrets> {
    const current = await this.get(id);
    requireActorFor(principal, current, "rotate this bot's token");
    const bot = notGuest(notHouse(current, 'given a token'), 'given a new token');
    const secrets: BotSecrets = {
      token: newBotToken(this.deps.random),
      webhookSecret: bot.url === null ? null : newWebhookSecret(this.deps.random),
    };
    // Checked in the same script that writes the token: a bot retired meanwhile stays without one.
    const outcome = await this.deps.stores.bots.replaceSecrets(
      id,
      hashToken(secrets.token),
      secrets.webhookSecret,
    );
    if (outcome === 'not-found') throw new NotFoundError('bots/not-found', `No bot has the id ${id}.`);
    if (outcome === 'retired') {
      throw new ConflictError('bots/retired', 'A retired bot gets no new token: register a new bot instead.');
    }
    return secrets;
  }

  /** Refuses URLs that name a private address outright; hostnames are checked again at connect time. */
  private checkUrl(url: string): string {
    const literal = ipLiteralHost(new URL(url));
    if (literal !== null && !this.deps.allowPrivateBotUrls && !isPublicAddress(literal)) {
      throw new InvalidRequestError(
        'bots/url-not-allowed',
        'The bot URL must not point to a private address. For local development, start the arena with ARENA_ALLOW_PRIVATE_BOT_URLS=true (npm run demo does).',
        [{ path: 'body.url', message: 'private, loopback or reserved address' }],
      );
    }
    return url;
  }
}

/** A guest is a person at a browser, not a bot to configure: it may retire itself, nothing more. */
function notGuest(bot: BotRecord, what: string): BotRecord {
  if (bot.guest) {
    throw new PermissionError('bots/guest', `${bot.name} is a guest; it cannot be ${what}.`);
  }
  return bot;
}

/** House bots belong to the arena: the admin may retire one, nobody may change it. */
function notHouse(bot: BotRecord, what: string): BotRecord {
  if (bot.house !== null) {
    throw new PermissionError('bots/house-bot', `${bot.name} is a house bot; it cannot be ${what}.`);
  }
  return bot;
}
