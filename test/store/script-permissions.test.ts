import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedWrites } from '../../src/store/guarded-writes.ts';
import { luaCommand } from '../../src/store/lua-command.ts';
import { ANNOUNCE_TURN, APPEND_MOVES, GUARDED_WRITES, SUBMIT_ACTION } from '../../src/store/lua-scripts.ts';
import { PrivateRedis } from '../support/private-redis.ts';

// Redis keeps what a script wrote before one of its commands failed. A user that may not publish
// on the arena's channels (Redis 7 gives a new ACL user none: see the README) must find every
// script that publishes refused whole, not half written.
let server: PrivateRedis;
let admin: Redis;
const connections: Redis[] = [];
beforeAll(async () => {
  server = await PrivateRedis.start();
  admin = new Redis(server.url);
  await admin.acl('SETUSER', 'unheard', 'on', '>secret', '~*', 'resetchannels', '+@all');
  await admin.acl('SETUSER', 'heard', 'on', '>secret', '~*', '&*', '+@all');
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
      answer: `${at}:answer`,
      idempotency: `${at}:idempotency`,
      channel: `${at}:appended`,
    },
    appendMoves: luaCommand<number[]>(redis, APPEND_MOVES, undefined),
    announceTurn: luaCommand(redis, ANNOUNCE_TURN, 2),
    submitAction: luaCommand<string>(redis, SUBMIT_ACTION, undefined),
    guardedWrites: luaCommand(redis, GUARDED_WRITES, undefined),
  };
}

/** What a case's keys hold. */
async function written(keys: ReturnType<typeof scriptsAs>['keys']) {
  return {
    moves: await admin.get(keys.moves),
    moveCount: await admin.hget(keys.match, 'moveCount'),
    status: await admin.hget(keys.match, 'status'),
    events: await admin.xlen(keys.events),
    answer: await admin.get(keys.answer),
    idempotency: await admin.get(keys.idempotency),
  };
}

describe('the scripts that publish', () => {
  it.each([
    ['may publish', 'heard', true],
    ['may not publish', 'unheard', false],
  ] as const)('run by a user that %s, write everything or nothing', async (_what, user, allowed) => {
    const run = scriptsAs(user);
    const { keys } = run;
    await admin.hset(keys.match, 'status', 'running', 'moveCount', '0');
    const outcomes: PromiseSettledResult<unknown>[] = await Promise.allSettled([
      run.appendMoves(3, keys.moves, keys.match, keys.events, 1, 'packed', 'run', '0', 'move', keys.channel),
      run.announceTurn(keys.match, keys.events, 'turn', keys.channel),
      run.submitAction(3, keys.answer, keys.channel, keys.idempotency, '{"action":"d3"}', 60),
    ]);
    const finish = new GuardedWrites()
      .guard(keys.match, 'status', 'running')
      .write('HSET', keys.match, 'status', 'finished')
      .write('PUBLISH', keys.channel, keys.events);
    outcomes.push(...(await Promise.allSettled([finish.run(run.guardedWrites)])));

    if (allowed) {
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(4).fill('fulfilled'));
      expect(await written(keys)).toEqual({
        moves: 'packed',
        moveCount: '1',
        status: 'finished',
        events: 2,
        answer: '{"action":"d3"}',
        idempotency: '{"action":"d3"}',
      });
    } else {
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/NOPERM|can't publish/);
      }
      expect(await written(keys)).toEqual({
        moves: null,
        moveCount: '0',
        status: 'running',
        events: 0,
        answer: null,
        idempotency: null,
      });
    }
  });
});
