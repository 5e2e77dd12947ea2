import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luaCommand } from '../../src/connections/lua-command.ts';
import { GuardedWrites } from '../../src/redis/guarded-writes.ts';
import {
  ANNOUNCE_TURN,
  APPEND_MOVES,
  GUARDED_WRITES,
  OPEN_TURN,
  RECORD_PULLED_MOVE,
} from '../../src/redis/lua-scripts.ts';
import { PrivateRedis } from '../support/private-redis.ts';

// Redis keeps what a script wrote before one of its commands failed. A user that may not publish
// on the arena's channels (Redis 7 gives a new ACL user none: see the README), or may not run one
// of the commands a script writes with, must find that script refused whole, not half written.
let server: PrivateRedis;
let admin: Redis;
const connections: Redis[] = [];
/** Each user, what the admin denies it and the scripts that denial must refuse. */
const users = [
  { user: 'heard', denied: [], refused: [] },
  {
    user: 'unheard',
    denied: ['resetchannels'],
    refused: ['appendMoves', 'announceTurn', 'recordPulledMove', 'openTurn', 'finish'],
  },
  {
    user: 'no-xadd',
    denied: ['-xadd'],
    refused: ['appendMoves', 'announceTurn', 'recordPulledMove', 'openTurn'],
  },
  { user: 'no-hset', denied: ['-hset'], refused: ['appendMoves', 'recordPulledMove', 'openTurn', 'finish'] },
  { user: 'no-set', denied: ['-set'], refused: ['appendMoves', 'recordPulledMove'] },
] as const;
beforeAll(async () => {
  server = await PrivateRedis.start();
  admin = new Redis(server.url);
  for (const { user, denied } of users)
    await admin.acl('SETUSER', user, 'on', '>secret', '~*', '&*', '+@all', ...denied);
});
afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  admin?.disconnect();
  await server?.stop();
});

let made = 0;
function scriptsAs(user: string) {
  const redis = new Redis(`redis://${user}:secret@127.0.0.1:${server.port}`);
  connections.push(redis);
  const at = `case-${++made}`;
  return {
    keys: {
      match: `${at}:match`,
      moves: `${at}:moves`,
      events: `${at}:events`,
      turn: `${at}:turn`,
      botEvents: `${at}:bot-events`,
      idempotency: `${at}:idempotency`,
      channel: `${at}:appended`,
    },
    appendMoves: luaCommand<number[]>(redis, APPEND_MOVES, undefined),
    announceTurn: luaCommand(redis, ANNOUNCE_TURN, 2),
    recordPulledMove: luaCommand<string>(redis, RECORD_PULLED_MOVE, undefined),
    openTurn: luaCommand(redis, OPEN_TURN, 2),
    guardedWrites: luaCommand(redis, GUARDED_WRITES, undefined),
  };
}
type Keys = ReturnType<typeof scriptsAs>['keys'];

/** The first message on a case's channel, told apart from none by a marker the admin sends after. */
async function firstHeard(keys: Keys, run: () => Promise<unknown>): Promise<string> {
  const listener = new Redis(server.url);
  connections.push(listener);
  await listener.ssubscribe(keys.channel);
  const heard = new Promise<string>((resolve) =>
    listener.once('smessage', (_channel, message) => resolve(message)),
  );
  await run().catch(() => {});
  await admin.spublish(keys.channel, 'nothing before');
  return heard;
}

/** Each script: what it writes when it runs whole, as the admin reads it, and what it publishes. */
const scripts = {
  appendMoves: {
    run: (s: ReturnType<typeof scriptsAs>) =>
      s.appendMoves(
        3,
        s.keys.moves,
        s.keys.match,
        s.keys.events,
        1,
        'packed',
        'run',
        '0',
        'move',
        s.keys.channel,
      ),
    written: async (keys: Keys) => [
      await admin.get(keys.moves),
      await admin.hget(keys.match, 'moveCount'),
      await admin.xlen(keys.events),
    ],
    whole: ['packed', '1', 1],
    none: [null, '0', 0],
  },
  announceTurn: {
    run: (s: ReturnType<typeof scriptsAs>) =>
      s.announceTurn(s.keys.match, s.keys.events, 'turn', s.keys.channel),
    written: async (keys: Keys) => [await admin.xlen(keys.events)],
    whole: [1],
    none: [0],
  },
  recordPulledMove: {
    run: async (s: ReturnType<typeof scriptsAs>) => {
      const turn = { ply: 1, botId: 'bot', startedAt: Date.now(), timeoutMs: 60_000, run: 'run' };
      await admin.hset(s.keys.turn, turn);
      const k = s.keys;
      const keys = [k.turn, k.match, k.moves, k.events, k.idempotency];
      return s.recordPulledMove(5, ...keys, 1, 'bot', 'packed', 'move', '{"action":"d3"}', 60, k.channel);
    },
    written: async (keys: Keys) => [
      await admin.get(keys.moves),
      await admin.hget(keys.match, 'moveCount'),
      await admin.xlen(keys.events),
      await admin.get(keys.idempotency),
    ],
    whole: ['packed', '1', 1, '{"action":"d3"}'],
    none: [null, '0', 0, null],
  },
  openTurn: {
    run: (s: ReturnType<typeof scriptsAs>) =>
      s.openTurn(
        s.keys.turn,
        s.keys.botEvents,
        'm',
        1,
        'black',
        'bot',
        0,
        1000,
        'run',
        1500,
        1500,
        '{}',
        s.keys.channel,
      ),
    written: async (keys: Keys) => [await admin.hget(keys.turn, 'ply'), await admin.xlen(keys.botEvents)],
    whole: ['1', 1],
    none: [null, 0],
  },
  finish: {
    run: (s: ReturnType<typeof scriptsAs>) =>
      new GuardedWrites()
        .guard(s.keys.match, 'status', 'running')
        .write('HSET', s.keys.match, 'status', 'finished')
        .write('SPUBLISH', s.keys.channel, s.keys.events)
        .run(s.guardedWrites),
    written: async (keys: Keys) => [await admin.hget(keys.match, 'status')],
    whole: ['finished'],
    none: ['running'],
  },
} as const;

describe.each(users)('the scripts that write, run by $user', ({ user, refused }) => {
  it.each(Object.keys(scripts) as (keyof typeof scripts)[])(
    '%s writes and tells everything or nothing',
    async (name) => {
      const script = scripts[name];
      const run = scriptsAs(user);
      await admin.hset(run.keys.match, 'status', 'running', 'moveCount', '0');
      let outcome: unknown;
      const heard = await firstHeard(run.keys, () =>
        script.run(run).then(
          () => (outcome = 'ran'),
          (error: unknown) => (outcome = error),
        ),
      );
      if ((refused as readonly string[]).includes(name)) {
        expect(String(outcome)).toMatch(/NOPERM|can't publish|no permissions/);
        expect(await script.written(run.keys)).toEqual(script.none);
        expect(heard).toBe('nothing before');
      } else {
        expect(outcome).toBe('ran');
        expect(await script.written(run.keys)).toEqual(script.whole);
        expect(heard).not.toBe('nothing before');
      }
    },
  );
});
