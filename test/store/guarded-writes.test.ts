import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luaCommand } from '../../src/connections/lua-command.ts';
import { GuardedWrites, type GuardedWritesScript } from '../../src/redis/guarded-writes.ts';
import { GUARDED_WRITES } from '../../src/redis/lua-scripts.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let guardedWrites: GuardedWritesScript;
beforeAll(async () => {
  h = await createHarness();
  guardedWrites = luaCommand(h.redis, GUARDED_WRITES, undefined);
});
afterAll(() => h.close());

const key = (name: string) => `${h.prefix}:guarded:${name}`;

/** Ending a match as a finish does: guarded on its status, counting a game for a bot. */
function finishing(match: string, bot: string): GuardedWrites {
  return new GuardedWrites()
    .guard(match, 'status', 'running')
    .guard(bot, 'pausedReason', undefined)
    .write('HSET', match, 'status', 'finished')
    .write('HINCRBY', bot, 'games', 1)
    .write('RPUSH', key('events'), match);
}

describe('guarded writes', () => {
  it('writes once, and a resent call finds its guard broken by the first and writes nothing', async () => {
    const [match, bot] = [key('match-1'), key('bot-1')];
    await h.redis.hset(match, 'status', 'running');
    const tx = finishing(match, bot);
    expect(await tx.run(guardedWrites)).toBe(true);
    expect(await tx.run(guardedWrites)).toBe(false);
    expect(await h.redis.hgetall(match)).toEqual({ status: 'finished' });
    expect(await h.redis.hget(bot, 'games')).toBe('1');
    expect(await h.redis.lrange(key('events'), 0, -1)).toEqual([match]);
  });

  it('writes nothing when a field that must be missing exists', async () => {
    const [match, bot] = [key('match-2'), key('bot-2')];
    await h.redis.hset(match, 'status', 'running');
    await h.redis.hset(bot, 'pausedReason', 'faults');
    expect(await finishing(match, bot).run(guardedWrites)).toBe(false);
    expect(await h.redis.hget(match, 'status')).toBe('running');
    expect(await h.redis.hget(bot, 'games')).toBeNull();
  });

  it('creating a match again (a resent call) leaves the started match as it is', async () => {
    const black = (await registerBot(h, { name: 'guarded-black', url: 'http://127.0.0.1:9/' })).id;
    const white = (await registerBot(h, { name: 'guarded-white', url: 'http://127.0.0.1:9/' })).id;
    const id = await createMatch(h, black, white);
    const created = (await h.stores.matches.getMatch(id))!;
    await h.stores.matches.startMatch(id, Date.now());
    await h.stores.matches.createMatch(created);
    expect((await h.stores.matches.getMatch(id))?.status).toBe('running');
    expect(await h.stores.matches.matchIdsInStatus('queued', 10)).not.toContain(id);
  });
});
