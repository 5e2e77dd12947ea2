import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, RedisOutageLog, redisErrorListener } from '../../src/store/redis-connection.ts';
import { PrivateRedis, until } from '../support/private-redis.ts';

let server: PrivateRedis;
beforeAll(async () => {
  server = await PrivateRedis.start();
});
afterAll(async () => {
  await server?.stop();
});

/** A logger that keeps what each level was told. */
function recordingLogger() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    warn: (_obj: object, msg: string) => lines.push({ level: 'warn', msg }),
    info: (msg: string) => lines.push({ level: 'info', msg }),
    error: (_obj: object, msg: string) => lines.push({ level: 'error', msg }),
  };
}

describe('redisErrorListener', () => {
  it('hands what ioredis rejects commands with while Redis is down to the outage log, once, not to the error log', async () => {
    const logger = recordingLogger();
    const outages = new RedisOutageLog(logger);
    // The API's connection (no offline queue) and one that queues offline with a retry limit.
    const api = outages.watch(createRedis(server.url, 'api'));
    const queued = outages.watch(createRedis(server.url, 'api', { enableOfflineQueue: true }));
    await Promise.all([api.connect(), queued.connect()]);
    const report = redisErrorListener(outages, logger, 'stream waits failed');
    try {
      await server.stop();
      await until(async () => api.status !== 'ready' && queued.status !== 'ready', 'the clients to notice');
      const refused = await api.xread('STREAMS', 'k', '0-0').then(
        () => undefined,
        (error: Error) => error,
      );
      const exhausted = await queued.xread('STREAMS', 'k', '0-0').then(
        () => undefined,
        (error: Error) => error,
      );
      expect(refused?.message).toMatch(/enableOfflineQueue/);
      expect(exhausted?.name).toBe('MaxRetriesPerRequestError');
      report(refused as Error);
      report(exhausted as Error);
      report(new Error('NOPERM this user has no permissions to access one of the channels'));
      expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.msg)).toEqual([
        'stream waits failed',
      ]);
      expect(logger.lines.filter((line) => line.msg.startsWith('redis connection lost'))).toHaveLength(1);

      await server.start();
      await until(
        async () => logger.lines.some((line) => line.msg === 'redis connection restored'),
        'the return',
      );
    } finally {
      api.disconnect();
      queued.disconnect();
    }
  });
});
