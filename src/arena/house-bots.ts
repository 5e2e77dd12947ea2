import { HOUSE_BOTS } from '../house/roster.ts';
import { ConflictError } from '../model/errors.ts';
import type { Stores } from '../store/store.ts';
import type { RandomBytes } from '../support/clock.ts';
import { hashToken, newBotToken } from './secrets.ts';

/**
 * Registers the house bots that are missing. Answers the names it registered, and those it could not
 * because a bot that is not a house bot holds the name (registered before names were reserved). Safe to
 * run from every process at every start: each bot has a fixed id and a reserved name, and the
 * store creates a bot only when its name is free, atomically. Their token is made and thrown away:
 * nobody can act as a house bot, and a retired one stays retired.
 */
export async function ensureHouseBots(
  stores: Pick<Stores, 'bots'>,
  deps: { readonly now: number; readonly random: RandomBytes; readonly startingRating: number },
): Promise<{ registered: string[]; nameTaken: string[] }> {
  const existing = await stores.bots.getBots(HOUSE_BOTS.map((bot) => bot.id));
  const registered: string[] = [];
  const nameTaken: string[] = [];
  for (const [i, house] of HOUSE_BOTS.entries()) {
    if (existing[i] !== null) continue;
    try {
      await stores.bots.createBot({
        id: house.id,
        name: house.name,
        description: house.description,
        url: null,
        tokenHash: hashToken(newBotToken(deps.random)),
        webhookSecret: null,
        createdAt: deps.now,
        rating: deps.startingRating,
        challenges: 'accept',
        house: house.engine,
      });
      registered.push(house.name);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      // Either another process registered it a moment ago, or someone else has the name.
      if ((await stores.bots.getBot(house.id)) === null) nameTaken.push(house.name);
    }
  }
  return { registered, nameTaken };
}
