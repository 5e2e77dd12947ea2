import type { Redis } from 'ioredis';

/** A Lua script bound to a connection: call it with its keys, then its arguments. */
export type Script<Reply = number> = (...args: (string | number)[]) => Promise<Reply>;

/**
 * Binds a Lua script to `redis`. ioredis' defineCommand runs EVALSHA with a fallback to EVAL. The
 * command's name comes from the script, so stores sharing a connection define each script once.
 * With `numberOfKeys` undefined, each call passes its key count first.
 */
export function script<Reply = number>(
  redis: Redis,
  lua: string,
  numberOfKeys: number | undefined,
): Script<Reply> {
  const name = `arena_${Buffer.from(lua).toString('base64url').slice(0, 12)}_${lua.length}`;
  if (!(name in redis)) redis.defineCommand(name, { lua, numberOfKeys });
  const command = (redis as unknown as Record<string, Script<Reply>>)[name]!;
  return (...args) => command.apply(redis, args);
}
