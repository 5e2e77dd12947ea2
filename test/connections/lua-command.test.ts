import { afterEach, describe, expect, it } from 'vitest';
import { luaCommand } from '../../src/connections/lua-command.ts';
import { createRedis, type RedisClient } from '../../src/connections/redis-connection.ts';

describe('luaCommand on an auto-pipelined (api) connection', () => {
  let redis: RedisClient | undefined;
  afterEach(() => redis?.disconnect());

  it('answers a script defined and called in the tick another command opened a pipeline in', async () => {
    redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'api');
    await redis.connect();
    // The GET opens this tick's pipeline before the script exists; ioredis then refused the
    // script's call and the pipeline's reply threw out of the event loop.
    const earlier = redis.exists('lua-command-test:none');
    const echo = luaCommand<string>(redis, "return 'echo:' .. ARGV[1]", 0);
    const [exists, echoed] = await Promise.all([earlier, echo('same tick')]);
    expect(exists).toBe(0);
    expect(echoed).toBe('echo:same tick');
    expect(await echo('next tick')).toBe('echo:next tick');
  });
});
