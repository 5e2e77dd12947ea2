import type { RedisClient } from './redis-connection.ts';

/** A Lua script defined as a command on a connection: call it with its keys, then its arguments. */
export type LuaCommand<Reply = number> = (...args: (string | number | Buffer)[]) => Promise<Reply>;

/**
 * Defines `lua` as a command on `redis`. ioredis' defineCommand runs EVALSHA with a fallback to
 * EVAL. The command's name comes from the script, so stores sharing a connection define each
 * script once. With `numberOfKeys` undefined, each call passes its key count first.
 *
 * @example
 * const holdStream = luaCommand(redis, HOLD_STREAM, 1);
 * await holdStream(keys.botStreams(botId), leaseId, ttlMs, max);
 */
export function luaCommand<Reply = number>(
  redis: RedisClient,
  lua: string,
  numberOfKeys: number | undefined,
): LuaCommand<Reply> {
  const name = `arena_${Buffer.from(lua).toString('base64url').slice(0, 12)}_${lua.length}`;
  if (!(name in redis)) redis.defineCommand(name, { lua, numberOfKeys });
  const command = (redis as unknown as Record<string, LuaCommand<Reply>>)[name]!;
  return (...args) => command.apply(redis, args);
}
