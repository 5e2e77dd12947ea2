import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, signInPrefix } from '../../src/config.ts';
import { createRedis } from '../../src/connections/redis-connection.ts';
import { copyStore, migrationKey, movedKey } from '../../src/redis/store-copy.ts';
import { startWorkers } from '../../src/wiring/processes.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { compiledProgram } from '../support/compiled-programs.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchEnded } from '../support/match-events.ts';
import { PrivateRedis } from '../support/private-redis.ts';
import { RedisClusterSet } from '../support/redis-cluster.ts';
import { scanKeys } from '../support/redis-keys.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `npm run migrate -- --from <url>` into `env`'s store: its exit code and what it printed. */
async function migrate(from: string, env: Record<string, string>) {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...compiledProgram('src/migrate.ts'), '--from', from],
      { cwd: ROOT, env: { ...process.env, REDIS_PREFIX: 'arena', ...env } },
    );
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/**
 * An arena that ran on one server moves to a Redis Cluster with `npm run migrate`: its bots, tokens,
 * ratings and matches read the same there, and the match it had queued is played on the cluster.
 */
describe('npm run migrate, from one server to a cluster', { timeout: 120_000 }, () => {
  let old: PrivateRedis;
  let cluster: RedisClusterSet;
  let oldRedis: Redis;
  const bots: LoopbackBot[] = [];
  let players: RegisteredBot[];
  let finished: string;
  let queued: string;
  /** What the API answered on the old server, read again on the cluster. */
  let before: Record<string, unknown>;
  let source: Harness | undefined;
  /** A browser's session cookie, signed in on the old server. */
  let cookie: string;

  const views = async (h: Harness) => ({
    leaderboard: (await request(h.app).get('/v1/leaderboard')).body,
    finished: (await request(h.app).get(`/v1/matches/${finished}`)).body,
    bot: (await request(h.app).get(`/v1/bots/${players[0]!.id}`)).body,
    me: (await request(h.app).get('/v1/bots/me').set(bearer(players[1]!.token))).body,
    session: (await request(h.app).get('/v1/session').set('cookie', cookie)).body,
  });

  beforeAll(async () => {
    [old, cluster] = await Promise.all([
      PrivateRedis.start(),
      RedisClusterSet.start({ downAfterMs: 15_000 }),
    ]);
    oldRedis = new Redis(old.url);
    source = await createHarness({ REDIS_URL: old.url, REDIS_PREFIX: 'arena' });
    for (let i = 0; i < 2; i++) bots.push(await startLoopbackBot(playsFirstLegal()));
    players = [
      await registerBot(source, { name: 'moving-black', url: bots[0]!.url }),
      await registerBot(source, { name: 'moving-white', url: bots[1]!.url }),
    ];
    finished = await createMatch(source, players[0]!.id, players[1]!.id, { rated: true });
    const { runner, close } = runnerFor(source);
    expect(await runner.play(finished, new AbortController().signal)).toBe('finished');
    await close();
    queued = await createMatch(source, players[1]!.id, players[0]!.id, { rated: true });
    const account = (await request(source.app).post('/v1/accounts').send({ name: 'moving-owner' })).body;
    const signedIn = await request(source.app).post('/v1/session').set(bearer(account.token));
    cookie = (signedIn.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
    before = await views(source);
    expect(before.session).toMatchObject({ account: { id: account.id } });
  }, 60_000);
  afterAll(async () => {
    await source?.close({ keepKeys: true });
    oldRedis?.disconnect();
    await Promise.all(bots.map((bot) => bot.close()));
    await Promise.all([old?.stop(), cluster?.stop()]);
  });

  it('refuses while the old arena is still connected, then copies every key once', async () => {
    const refused = await migrate(old.url, cluster.env);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/arena connection\(s\) are open on the old server: stop its API/);

    await source!.close({ keepKeys: true });
    source = undefined;
    const keys = await scanKeys(oldRedis, 'arena:*');
    const copied = await migrate(old.url, cluster.env);
    expect(copied).toMatchObject({ code: 0 });
    expect(copied.output).toContain(`done: ${keys.length} keys copied`);
    const again = await migrate(old.url, cluster.env);
    expect(again).toMatchObject({ code: 0 });
    expect(again.output).toContain(`already done: ${keys.length} keys were copied by an earlier run`);
  });

  it('leaves an arena on the cluster that reads as the old one did, and plays its queued match', async () => {
    const h = await createHarness({ ...cluster.env, REDIS_PREFIX: 'arena' });
    const workers = await startWorkers(h.config, pino({ level: 'silent' }));
    try {
      expect(h.prefix).toBe('{arena}');
      expect(await views(h)).toEqual(before);
      await matchEnded(h, queued, 30_000);
      const played = (await request(h.app).get(`/v1/matches/${queued}`)).body;
      expect(played).toMatchObject({ status: 'finished', result: { reason: 'completed' } });
      expect((await request(h.app).get(`/v1/bots/${players[0]!.id}`)).body.games).toBe(2);
    } finally {
      await workers.close();
      await h.close();
    }
  });

  it('moves the sign-ins an arena kept under its own tag on the cluster under theirs, once, at start', async () => {
    const earlier = await createHarness({ ...cluster.env, REDIS_PREFIX: 'retagged' });
    const [tag, signInTag] = [earlier.prefix, signInPrefix(earlier.prefix)];
    let cookie: string;
    let accountId: string;
    try {
      const account = (await request(earlier.app).post('/v1/accounts').send({ name: 'retag-owner' })).body;
      accountId = account.id;
      const signedIn = await request(earlier.app).post('/v1/session').set(bearer(account.token));
      cookie = (signedIn.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
      // Back where the version before kept them, under the arena's tag, with no record of a move.
      const r = earlier.redis;
      const current = await scanKeys(r, `${signInTag}:*`);
      expect(current.length).toBeGreaterThan(0);
      for (const key of current) {
        const [dump, ttl] = [await r.dumpBuffer(key), await r.pttl(key)];
        await r.restore(`${tag}${key.slice(signInTag.length)}`, Math.max(ttl, 0), dump!, 'REPLACE');
        await r.del(key);
      }
      await r.del(movedKey(tag));
    } finally {
      await earlier.close({ keepKeys: true });
    }

    const upgraded = await createHarness({ ...cluster.env, REDIS_PREFIX: 'retagged' });
    try {
      const session = await request(upgraded.app).get('/v1/session').set('cookie', cookie);
      expect(session.body).toMatchObject({ account: { id: accountId } });
      expect(await scanKeys(upgraded.redis, `${tag}:session:*`)).toEqual([]);
      const [moved] = await scanKeys(upgraded.redis, `${signInTag}:session:*`);
      expect(await upgraded.redis.pttl(moved!)).toBeGreaterThan(0);
      expect(await upgraded.redis.hlen(movedKey(tag))).toBe(1);
    } finally {
      await upgraded.close();
    }
  });

  it('resumes a copy cut short from its last batch, and ends with every key', async () => {
    const target = createRedis(loadConfig(cluster.env).redis.target, 'worker');
    try {
      const copy = { source: oldRedis, sourcePrefix: 'arena', target, targetPrefix: '{resumed}', batch: 5 };
      const stop = new Error('cut short');
      await expect(
        copyStore({
          ...copy,
          onBatch: ({ copied }) => {
            if (copied > 0) throw stop;
          },
        }),
      ).rejects.toBe(stop);
      expect(await target.hget(migrationKey('{resumed}'), 'cursor')).not.toBe('done');

      const keys = await scanKeys(oldRedis, 'arena:*');
      const resumed = await copyStore(copy);
      expect(resumed.started).toBe('resumed');
      // The queue's keys, the rate limits' and the sign-ins' under their own hash tags
      // (bullPrefix, rateLimitPrefix, signInPrefix), the arena's under the prefix's.
      const renamed = (key: string) =>
        key.startsWith('arena:bull:')
          ? `{resumed-queue}${key.slice('arena:bull'.length)}`
          : key.startsWith('arena:rate:')
            ? `{resumed-rate}${key.slice('arena'.length)}`
            : /^arena:(session:|account:[^:]+:sessions$)/.test(key)
              ? `{resumed-sign-in}${key.slice('arena'.length)}`
              : `{resumed}${key.slice('arena'.length)}`;
      expect(keys.some((key) => key.startsWith('arena:bull:'))).toBe(true);
      expect(keys.some((key) => key.startsWith('arena:rate:'))).toBe(true);
      const copiedKeys = (await Promise.all(keys.map((key) => target.exists(renamed(key))))).filter(
        (n) => n === 1,
      );
      expect(copiedKeys).toHaveLength(keys.length);
    } finally {
      target.disconnect();
    }
  });
});
