import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchState } from '../../src/contract/index.ts';
import { bearer, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LogLines, startLoggedApi } from '../support/logged-api.ts';
import { PrivateRedis } from '../support/private-redis.ts';

// A redis-server of this file's own, with an ACL user that may not use any pub/sub channel: the
// mistake an operator makes by leaving out `&<prefix>:streams:appended` (see the README).
let server: PrivateRedis;
let h: Harness;
let api: Awaited<ReturnType<typeof startLoggedApi>>['api'];
let log: LogLines;

beforeAll(async () => {
  server = await PrivateRedis.start();
  const admin = new Redis(server.url);
  await admin.acl('SETUSER', 'arena', 'on', '>arena-secret', '~*', 'resetchannels', '+@all');
  admin.disconnect();
  const url = `redis://arena:arena-secret@127.0.0.1:${server.port}`;
  h = await createHarness({ REDIS_URL: url });
  ({ api, log } = await startLoggedApi(h.config));
});
afterAll(async () => {
  await api?.close();
  await h?.close();
  await server?.stop();
});

describe('stream waits that cannot listen', () => {
  it('log an error once, and the long poll still answers at its deadline', async () => {
    const black = await registerBot(h, { name: 'unheard-black' });
    const white = await registerBot(h, { name: 'unheard-white' });
    const id = await createMatch(h, black.id, white.id);
    const poll = () =>
      request(api.app).get(`/v1/matches/${id}/state`).query({ waitMs: 300 }).set(bearer(black.token));
    for (const res of [await poll(), await poll()]) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((res.body as MatchState).status).toBe('queued');
    }
    const failures = log.entries().filter((entry) => /stream waits failed/.test(entry.msg));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ level: 50 });
    expect(JSON.stringify(failures[0]!.err)).toContain('NOPERM');
  });
});
