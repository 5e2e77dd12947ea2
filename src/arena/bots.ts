import type { Clock, RandomBytes } from '../clock.ts';
import { ConflictError, InvalidRequestError, NotFoundError, PermissionError } from '../errors.ts';
import { HOUSE_NAME_PREFIX, isHouseName } from '../house/roster.ts';
import { newId } from '../ids.ts';
import { ipLiteralHost, isPublicAddress } from '../net/address-policy.ts';
import type { BotRecord, Page, RatingHistoryEntry } from '../store/records.ts';
import type { ArenaStore, BotQuery } from '../store/store.ts';
import { GUEST_NAME_PREFIX, isGuestName } from './guests.ts';
import { type Principal, requireAdmin, requireBotOrAdmin } from './principal.ts';
import { hashToken, newBotToken, newWebhookSecret } from './secrets.ts';

export interface BotServiceDeps {
  readonly store: ArenaStore;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly startingRating: number;
  readonly allowPrivateBotUrls: boolean;
}

export interface BotSecrets {
  readonly token: string;
  readonly webhookSecret: string | null;
}

/**
 * Registering, changing and retiring bots. Callers pass values already parsed at the edge; this
 * checks what only the arena knows (names taken, who may act, which URLs it may call).
 */
export class BotService {
  constructor(private readonly deps: BotServiceDeps) {}

  async register(input: {
    name: string;
    description?: string;
    url?: string;
    /** Default true. */
    acceptsChallenges?: boolean;
    /** Where the request came from (see BotRecord.registeredFrom). */
    origin?: string;
  }): Promise<{
    bot: BotRecord;
    secrets: BotSecrets;
  }> {
    const { store, clock, random } = this.deps;
    checkName(input.name);
    const url = input.url === undefined ? null : this.checkUrl(input.url);
    const secrets: BotSecrets = {
      token: newBotToken(random),
      webhookSecret: url === null ? null : newWebhookSecret(random),
    };
    const now = clock.now();
    const id = newId('bot', now, random);
    await store.createBot({
      id,
      name: input.name,
      description: input.description ?? null,
      url,
      tokenHash: hashToken(secrets.token),
      webhookSecret: secrets.webhookSecret,
      createdAt: now,
      rating: this.deps.startingRating,
      acceptsChallenges: input.acceptsChallenges ?? true,
      ...(input.origin === undefined ? {} : { registeredFrom: input.origin }),
    });
    return { bot: await this.get(id), secrets };
  }

  async get(id: string): Promise<BotRecord> {
    const bot = await this.deps.store.getBot(id);
    if (bot === null) throw new NotFoundError('bots/not-found', `No bot has the id ${id}.`);
    return bot;
  }

  ratingHistory(id: string, limit: number): Promise<RatingHistoryEntry[]> {
    return this.deps.store.ratingHistory(id, limit);
  }

  list(query: BotQuery): Promise<Page<BotRecord>> {
    return this.deps.store.listBots(query);
  }

  async update(
    principal: Principal | null,
    id: string,
    changes: { name?: string; description?: string | null; url?: string | null; acceptsChallenges?: boolean },
  ): Promise<{ bot: BotRecord; webhookSecret: string | null }> {
    requireBotOrAdmin(principal, [id], 'change this bot');
    const current = notGuest(notHouse(await this.get(id), 'changed'), 'changed');
    if (changes.name !== undefined) checkName(changes.name);
    const url = changes.url === undefined || changes.url === null ? changes.url : this.checkUrl(changes.url);
    // A pull bot that becomes a push bot needs a signing secret; a pull bot keeps none.
    let webhookSecret: string | null | undefined;
    if (url === null) webhookSecret = null;
    else if (url !== undefined && current.webhookSecret === null)
      webhookSecret = newWebhookSecret(this.deps.random);
    // A change never lifts a pause: a bot that faults on purpose would send one to be paired again.
    const bot = await this.deps.store.updateBot(id, { ...changes, url, webhookSecret });
    if (bot === null) throw new NotFoundError('bots/not-found', `No bot has the id ${id}.`);
    return { bot, webhookSecret: webhookSecret ?? null };
  }

  /** The admin ends a bot's matchmaking pause now; nobody else may (see src/standings/pause.ts). */
  async liftPause(principal: Principal | null, id: string): Promise<BotRecord> {
    requireAdmin(principal);
    const bot = await this.deps.store.endPause(id, this.deps.clock.now());
    if (bot === null) throw new NotFoundError('bots/not-found', `No bot has the id ${id}.`);
    return bot;
  }

  async retire(principal: Principal | null, id: string): Promise<void> {
    requireBotOrAdmin(principal, [id], 'retire this bot');
    await this.get(id);
    await this.deps.store.retireBot(id);
  }

  async rotateSecrets(principal: Principal | null, id: string): Promise<BotSecrets> {
    requireBotOrAdmin(principal, [id], "rotate this bot's token");
    const bot = notGuest(notHouse(await this.get(id), 'given a token'), 'given a new token');
    const secrets: BotSecrets = {
      token: newBotToken(this.deps.random),
      webhookSecret: bot.url === null ? null : newWebhookSecret(this.deps.random),
    };
    // Checked in the same script that writes the token: a bot retired meanwhile stays without one.
    const outcome = await this.deps.store.replaceSecrets(id, hashToken(secrets.token), secrets.webhookSecret);
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

/** Names starting `house-` are the house bots' own, `guest-` the guests': nobody can pass for one. */
function checkName(name: string): void {
  if (isHouseName(name)) {
    throw new InvalidRequestError(
      'bots/name-reserved',
      `Names starting with "${HOUSE_NAME_PREFIX}" are reserved for the arena's house bots.`,
      [{ path: 'body.name', message: `must not start with "${HOUSE_NAME_PREFIX}"` }],
    );
  }
  if (isGuestName(name)) {
    throw new InvalidRequestError(
      'bots/name-reserved',
      `Names starting with "${GUEST_NAME_PREFIX}" are reserved for guests (POST /v1/guests).`,
      [{ path: 'body.name', message: `must not start with "${GUEST_NAME_PREFIX}"` }],
    );
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
