import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { redisAnswers } from '../../src/connections/local-redis.ts';
import { closedPort } from '../support/loopback-bot.ts';

describe('redisAnswers', () => {
  it('is true where Redis answers', async () => {
    expect(await redisAnswers(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')).toBe(true);
  });

  it('is false where nothing listens', async () => {
    expect(await redisAnswers(`redis://127.0.0.1:${await closedPort()}`, 500)).toBe(false);
  });

  it('is false, in its time, where something listens without speaking Redis', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const { port } = silent.address() as AddressInfo;
      // Without a command timeout the PING waits for ever: the test would time out, not fail fast.
      await expect(redisAnswers(`redis://127.0.0.1:${port}`, 300)).resolves.toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
