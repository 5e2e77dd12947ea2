import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LuaCommand, luaCommand } from '../../src/connections/lua-command.ts';
import type { StoreKeys } from '../../src/redis/keys.ts';
import { REPLACE_SECRETS, RETIRE_BOT, STALE, UPDATE_BOT } from '../../src/redis/lua-scripts.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let k: StoreKeys;
let scripts: { update: LuaCommand; replace: LuaCommand; retire: LuaCommand };
beforeAll(async () => {
  h = await createHarness();
  k = h.stores.keys;
  scripts = {
    update: luaCommand(h.redis, UPDATE_BOT, 5),
    replace: luaCommand(h.redis, REPLACE_SECRETS, 3),
    retire: luaCommand(h.redis, RETIRE_BOT, undefined),
  };
});
afterAll(() => h.close());

/** Stores a push bot with this name and token hash; returns its id. */
async function storedBot(name: string, tokenHash: string): Promise<string> {
  const id = `bot_${name
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '0')
    .padEnd(26, '0')}`;
  await h.stores.bots.createBot({
    id,
    name,
    description: null,
    url: 'http://127.0.0.1:9/',
    tokenHash,
    webhookSecret: null,
    createdAt: 1,
    rating: 1500,
    challenges: 'accept',
  });
  return id;
}

// Each script is handed, in KEYS, the keys named from what its caller read (a name, a token hash),
// and checks that what was read still holds: a resent call, or a call racing another writer, finds
// it changed, answers STALE and writes nothing, and the store reads again.
describe('the optimistic bot scripts', () => {
  describe('REPLACE_SECRETS', () => {
    it('moves the token, and the same call again finds the hash it read gone and writes nothing', async () => {
      const id = await storedBot('secrets-one', 'hash-a');
      const replace = () =>
        scripts.replace(k.bot(id), k.token('hash-a'), k.token('hash-b'), 'hash-a', id, 'hash-b', '');
      expect(await replace()).toBe(1);
      await h.redis.set(k.token('hash-a'), 'a key the stale call must not touch');
      expect(await replace()).toBe(STALE);
      expect(await h.redis.get(k.token('hash-a'))).toBe('a key the stale call must not touch');
      expect(await h.redis.get(k.token('hash-b'))).toBe(id);
      expect(await h.redis.hget(k.bot(id), 'tokenHash')).toBe('hash-b');
    });
  });

  describe('RETIRE_BOT', () => {
    it('writes nothing when the token changed since it was read, so the new token is not left valid', async () => {
      const id = await storedBot('retire-one', 'hash-c');
      await h.stores.bots.replaceSecrets(id, 'hash-d', null);
      const retire = () =>
        scripts.retire(
          6,
          k.bot(id),
          k.activeBotsByName,
          k.leaderboard,
          k.token('hash-c'),
          k.leaderboardGames,
          k.guests,
          'retire-one',
          'hash-c',
          `retire-one ${id}`,
          id,
        );
      expect(await retire()).toBe(STALE);
      expect(await h.redis.hget(k.bot(id), 'status')).toBe('active');
      await h.stores.bots.retireBot(id);
      expect(await h.redis.hget(k.bot(id), 'status')).toBe('retired');
      expect(await h.redis.get(k.token('hash-d'))).toBeNull();
    });
  });

  describe('UPDATE_BOT', () => {
    it('renames, and the same call again finds the name it read gone and writes nothing', async () => {
      const id = await storedBot('rename-one', 'hash-e');
      const rename = () =>
        scripts.update(
          k.bot(id),
          k.botsByName,
          k.activeBotsByName,
          k.botName('rename-one'),
          k.botName('Rename-Two'),
          'rename-one',
          'Rename-Two',
          `rename-one ${id}`,
          `rename-two ${id}`,
          id,
          'description',
          'first',
        );
      expect(await rename()).toBe(1);
      expect(await rename()).toBe(STALE);
      expect(await h.redis.get(k.botName('rename-one'))).toBeNull();
      expect(await h.redis.get(k.botName('rename-two'))).toBe(id);
      expect(await h.redis.zrange(k.botsByName, 0, -1)).toContain(`rename-two ${id}`);
      expect(await h.redis.zrange(k.botsByName, 0, -1)).not.toContain(`rename-one ${id}`);
      expect(await h.stores.bots.getBot(id)).toMatchObject({ name: 'Rename-Two', description: 'first' });
    });

    it('refuses a name another bot holds, writing nothing', async () => {
      const id = await storedBot('rename-three', 'hash-f');
      await storedBot('rename-four', 'hash-g');
      await expect(
        h.stores.bots.updateBot(id, { name: 'RENAME-FOUR', description: 'x' }),
      ).rejects.toMatchObject({
        code: 'bots/name-taken',
      });
      expect(await h.stores.bots.getBot(id)).toMatchObject({ name: 'rename-three', description: null });
    });
  });
});
