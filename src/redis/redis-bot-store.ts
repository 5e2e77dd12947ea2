import { luaCommand } from '../connections/lua-command.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import { ConflictError, InvalidCursorError } from '../model/errors.ts';
import { isPausedAt } from '../model/pause.ts';
import type { BotChanges, BotRecord, NewBot, Page } from '../model/records.ts';
import type { BotQuery, BotStore } from '../store/bot-store.ts';
import { CURSOR_SHAPE, decodeBot, decodeCursor, encodeCursor, newBotFields } from './codec.ts';
import { GuardedWrites } from './guarded-writes.ts';
import { idOfNameMember, nameMember, type StoreKeys } from './keys.ts';
import { CREATE_BOT, GUARDED_WRITES, REPLACE_SECRETS, RETIRE_BOT, STALE, UPDATE_BOT } from './lua-scripts.ts';
import { activeBots } from './ratings.ts';
import { readBots } from './read.ts';

function invalidCursor(): never {
  throw new InvalidCursorError();
}

/**
 * Runs an optimistic script call until it settles: `attempt` reads what the script's keys depend
 * on and calls it; STALE means that changed before the script ran, so it reads again.
 */
async function settled(what: string, attempt: () => Promise<number>): Promise<number> {
  for (let attempts = 1; attempts <= 100; attempts++) {
    const outcome = await attempt();
    if (outcome !== STALE) return outcome;
  }
  throw new Error(`could not ${what}: it keeps changing`);
}

/** Bots on Redis (see keys.ts); multi-key writes are Lua scripts. */
export class RedisBotStore implements BotStore {
  private readonly scripts;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {
    this.scripts = {
      createBot: luaCommand(redis, CREATE_BOT, undefined),
      updateBot: luaCommand(redis, UPDATE_BOT, 5),
      replaceSecrets: luaCommand(redis, REPLACE_SECRETS, 3),
      retireBot: luaCommand(redis, RETIRE_BOT, undefined),
      guardedWrites: luaCommand(redis, GUARDED_WRITES, undefined),
    };
  }

  async createBot(bot: NewBot, options: { readonly maxOwnedBots?: number } = {}): Promise<void> {
    const k = this.keys;
    const owned =
      bot.owner === undefined
        ? []
        : [k.accountBots(bot.owner.id), k.accountActiveBots(bot.owner.id), k.account(bot.owner.id)];
    const created = await this.scripts.createBot(
      8 + owned.length,
      k.bot(bot.id),
      k.botName(bot.name),
      k.token(bot.tokenHash),
      k.botsByName,
      k.activeBotsByName,
      k.leaderboard,
      k.leaderboardGames,
      k.guests,
      ...owned,
      bot.id,
      nameMember(bot.name, bot.id),
      -bot.rating,
      bot.guest ? bot.createdAt : '',
      options.maxOwnedBots ?? Number.MAX_SAFE_INTEGER,
      bot.createdAt,
      ...newBotFields(bot),
    );
    if (created === -1) {
      throw new ConflictError(
        'accounts/too-many-bots',
        `An account may have at most ${options.maxOwnedBots} active bots; retire one first.`,
      );
    }
    if (created === -2)
      throw new ConflictError('accounts/closed', 'The account is closed: it registers no bots.');
    if (created !== 1) throw new ConflictError('bots/name-taken', `The name ${bot.name} is taken.`);
  }

  async getBot(id: string): Promise<BotRecord | null> {
    return decodeBot(await this.redis.hgetall(this.keys.bot(id)));
  }

  getBots(ids: readonly string[]): Promise<(BotRecord | null)[]> {
    return readBots(this.redis, this.keys, ids);
  }

  async findBotIdByTokenHash(tokenHash: string): Promise<string | null> {
    return this.redis.get(this.keys.token(tokenHash));
  }

  async findBotIdByName(name: string): Promise<string | null> {
    return this.redis.get(this.keys.botName(name));
  }

  async updateBot(id: string, changes: BotChanges): Promise<BotRecord | null> {
    const fields: string[] = [];
    const set = (field: string, value: string | null | undefined) => {
      if (value !== undefined) fields.push(field, value ?? '\0');
    };
    set('description', changes.description);
    set('url', changes.url);
    set('webhookSecret', changes.webhookSecret);
    // The defaults are stored as no field (see newBotFields); a flag of the old form goes either way.
    if (changes.challenges !== undefined) {
      set('challenges', changes.challenges === 'accept' ? null : changes.challenges);
      set('acceptsChallenges', null);
    }
    if (changes.ratedPlay !== undefined) set('ratedPlay', changes.ratedPlay ? null : '0');
    if (changes.slowPool !== undefined) set('slowPool', changes.slowPool ? '1' : null);
    const k = this.keys;
    // The name keys depend on the name, read first; the script checks it still holds (see settled).
    const outcome = await settled(`update ${id}`, async () => {
      const name = await this.redis.hget(k.bot(id), 'name');
      if (name === null) return 0;
      const newName = changes.name ?? name;
      return this.scripts.updateBot(
        k.bot(id),
        k.botsByName,
        k.activeBotsByName,
        k.botName(name),
        k.botName(newName),
        name,
        changes.name ?? '',
        nameMember(name, id),
        nameMember(newName, id),
        id,
        ...fields,
      );
    });
    if (outcome === 0) return null;
    if (outcome === -1) throw new ConflictError('bots/name-taken', `The name ${changes.name} is taken.`);
    return this.getBot(id);
  }

  async endPause(id: string, at: number): Promise<BotRecord | null> {
    const key = this.keys.bot(id);
    for (;;) {
      const bot = await this.getBot(id);
      if (bot === null || !isPausedAt(bot.paused, at)) return bot;
      // Guarded on the term read: a finish that paused the bot again meanwhile is not undone.
      const tx = new GuardedWrites()
        .guard(key, 'pausedUntil', String(bot.paused!.until))
        .write('HSET', key, 'pausedUntil', at);
      if (await tx.run(this.scripts.guardedWrites)) return this.getBot(id);
    }
  }

  async replaceSecrets(
    id: string,
    tokenHash: string,
    webhookSecret: string | null,
  ): Promise<'replaced' | 'not-found' | 'retired'> {
    const k = this.keys;
    // The old token's key depends on its hash, read first; the script checks it still holds.
    const outcome = await settled(`replace the secrets of ${id}`, async () => {
      const old = await this.redis.hget(k.bot(id), 'tokenHash');
      if (old === null) return 0;
      return this.scripts.replaceSecrets(
        k.bot(id),
        k.token(old),
        k.token(tokenHash),
        old,
        id,
        tokenHash,
        webhookSecret ?? '',
      );
    });
    return outcome === 1 ? 'replaced' : outcome === -1 ? 'retired' : 'not-found';
  }

  async retireBot(id: string): Promise<void> {
    const k = this.keys;
    // Its token's key and by-name member depend on what it holds, read first; the script checks.
    await settled(`retire ${id}`, async () => {
      const [name, tokenHash, owner] = await this.redis.hmget(k.bot(id), 'name', 'tokenHash', 'owner');
      if (name === null || name === undefined) return 0;
      // A bot's owner never changes: its key needs no check in the script.
      const owned = owner ? [k.accountActiveBots(owner)] : [];
      return this.scripts.retireBot(
        6 + owned.length,
        k.bot(id),
        k.activeBotsByName,
        k.leaderboard,
        k.token(tokenHash ?? ''),
        k.leaderboardGames,
        k.guests,
        ...owned,
        name,
        tokenHash ?? '',
        nameMember(name, id),
        id,
      );
    });
  }

  async listBots(query: BotQuery): Promise<Page<BotRecord>> {
    const key = query.includeRetired ? this.keys.botsByName : this.keys.activeBotsByName;
    const prefix = (query.namePrefix ?? '').toLowerCase();
    let min = `[${prefix}`;
    if (query.cursor !== undefined) {
      const after = decodeCursor(query.cursor, CURSOR_SHAPE.botName) ?? invalidCursor();
      if (after > min.slice(1)) min = `(${after}`;
    }
    // '\xff' sorts after every character a name may hold.
    const members = await this.redis.zrangebylex(key, min, `[${prefix}\xff`, 'LIMIT', 0, query.limit + 1);
    const page = members.slice(0, query.limit);
    const bots = await this.getBots(page.map(idOfNameMember));
    const last = page.at(-1);
    return {
      items: bots.filter((bot): bot is BotRecord => bot !== null),
      nextCursor: members.length > query.limit && last !== undefined ? encodeCursor(last) : null,
    };
  }

  activeBots(): Promise<BotRecord[]> {
    return activeBots(this.redis, this.keys);
  }
}
