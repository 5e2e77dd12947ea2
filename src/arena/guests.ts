import { ConflictError } from '../model/errors.ts';
import type { BotRecord } from '../model/records.ts';
import type { Stores } from '../store/store.ts';
import type { Clock, RandomBytes } from '../support/clock.ts';
import { newId } from '../support/ids.ts';
import type { BotSecrets } from './bots.ts';
import { hashToken, newBotToken } from './secrets.ts';

/** Names starting with this are guests' own; nobody may register or take one. */
export const GUEST_NAME_PREFIX = 'guest-';

/** Reserved for guests: the arena refuses it in any other bot's name. */
export function isGuestName(name: string): boolean {
  return name.toLowerCase().startsWith(GUEST_NAME_PREFIX);
}

/** Random bytes in a guest's name: 4 bytes, 8 hex digits, so names rarely collide. */
const NAME_BYTES = 4;
/** Names tried before giving up, each taken one drawn again (1 in 4 billion each). */
const NAME_ATTEMPTS = 5;

export interface GuestServiceDeps {
  readonly stores: Pick<Stores, 'bots' | 'guests' | 'matches'>;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly startingRating: number;
}

/**
 * Guests: people who play from a browser (the /play page) without registering a bot. A guest is a
 * pull bot flagged `guest`, named `guest-<8 hex digits>`: it declines challenges, stays off the
 * active list (so off matchmaking) and off the leaderboard, and its matches are unrated (see
 * MatchService). Its token is its only key; the page keeps it in the browser.
 */
export class GuestService {
  constructor(private readonly deps: GuestServiceDeps) {}

  /**
   * Registers a new guest and answers it with its token (shown once, as for any bot).
   *
   * @example
   * const { bot, secrets } = await guests.register(); // bot.name: 'guest-3fa09c1e'
   */
  async register(): Promise<{ bot: BotRecord; secrets: BotSecrets }> {
    const { stores, clock, random } = this.deps;
    const token = newBotToken(random);
    const now = clock.now();
    const id = newId('bot', now, random);
    for (let attempt = 1; ; attempt++) {
      const name = `${GUEST_NAME_PREFIX}${Buffer.from(random(NAME_BYTES)).toString('hex')}`;
      try {
        await stores.bots.createBot({
          id,
          name,
          description: null,
          url: null,
          tokenHash: hashToken(token),
          webhookSecret: null,
          createdAt: now,
          rating: this.deps.startingRating,
          challenges: 'refuse',
          guest: true,
        });
        break;
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= NAME_ATTEMPTS) throw error;
      }
    }
    const bot = await stores.bots.getBot(id);
    if (bot === null) throw new Error(`guest ${id} vanished as it was registered`);
    return { bot, secrets: { token, webhookSecret: null } };
  }
}

/** Guests looked at per sweep call; the next sweep takes the rest. */
const SWEEP_BATCH = 200;

/**
 * Retires the guests idle for `ttlMs` at `now`: registered that long ago, with no match queued or
 * running and none finished since. A guest the set remembers as idle but that played meanwhile
 * gets its last game's time instead, and is looked at again once that is `ttlMs` old. Retiring
 * revokes the token and drops the guest's event stream; the bot's record stays, so its matches
 * keep their players. Safe to run
 * from several processes at once: retiring twice is harmless. Answers the ids it retired.
 *
 * @example
 * await sweepIdleGuests(store, { now: Date.now(), ttlMs: 24 * 3_600_000 });
 */
export async function sweepIdleGuests(
  stores: Pick<Stores, 'bots' | 'guests' | 'matches'>,
  options: { readonly now: number; readonly ttlMs: number },
): Promise<string[]> {
  const cutoff = options.now - options.ttlMs;
  const ids = await stores.guests.guestsIdleSince(cutoff, SWEEP_BATCH);
  if (ids.length === 0) return [];
  const [bots, active] = await Promise.all([stores.bots.getBots(ids), stores.matches.activeMatchCounts(ids)]);
  const retired: string[] = [];
  for (const [i, id] of ids.entries()) {
    const bot = bots[i];
    if (bot === null || bot === undefined) continue;
    if (bot.status === 'retired') {
      await stores.guests.retireGuest(id); // retired by itself (DELETE) and still in the set: off it now
      continue;
    }
    if ((active[i] ?? 0) > 0) {
      await stores.guests.touchGuest(id, options.now);
      continue;
    }
    const lastSeen = await lastPlayedAt(stores, bot);
    if (lastSeen > cutoff) {
      await stores.guests.touchGuest(id, lastSeen);
      continue;
    }
    await stores.guests.retireGuest(id);
    retired.push(id);
  }
  return retired;
}

/** When a guest last played: its newest match's end (or start), else when it was registered. */
async function lastPlayedAt(
  stores: Pick<Stores, 'bots' | 'guests' | 'matches'>,
  bot: BotRecord,
): Promise<number> {
  const { items } = await stores.matches.listMatches({ botId: bot.id, limit: 1 });
  const newest = items[0];
  if (newest === undefined) return bot.createdAt;
  return Math.max(bot.createdAt, newest.finishedAt ?? newest.startedAt ?? newest.createdAt);
}
