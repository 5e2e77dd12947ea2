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
  if (!(name in redis)) defineOnPendingPipelines(redis, name, lua, numberOfKeys);
  const command = (redis as unknown as Record<string, LuaCommand<Reply>>)[name]!;
  return (...args) => command.apply(redis, args);
}

/**
 * An auto-pipelined connection queues a tick's commands on a pipeline made at the tick's first
 * command, which copies the commands defined by then. A script defined later in that tick and
 * called at once was missing from it: ioredis refused the call but kept its reply slot, and the
 * pipeline's reply then threw `results[i] is not iterable` out of the event loop (a fresh API's
 * first leaderboard read, beside a rate-limit count). So the pending pipelines learn it too.
 */
function defineOnPendingPipelines(
  redis: RedisClient,
  name: string,
  lua: string,
  numberOfKeys: number | undefined,
): void {
  redis.defineCommand(name, { lua, numberOfKeys });
  const pending = (redis as unknown as { _autoPipelines?: Map<string, Record<string, unknown>> })
    ._autoPipelines;
  const defined = (redis as unknown as Record<string, unknown>)[name];
  for (const pipeline of pending?.values() ?? []) pipeline[name] = defined;
}
