import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore as RateLimitStore, type RedisReply } from 'rate-limit-redis';
import { hashToken } from '../arena/secrets.ts';
import type { Config } from '../config.ts';
import { RateLimitedError } from '../errors.ts';

/**
 * Sends rate-limit-redis' commands through ioredis. Its scripts are kept here and run with EVALSHA,
 * falling back to EVAL: the limiter then never depends on a SCRIPT LOAD made at start-up, so it
 * works when Redis was down when the app started and after Redis restarts empty.
 */
function scriptSafeSender(redis: Redis) {
  const scripts = new Map<string, string>();
  return async (command: string, ...args: string[]): Promise<RedisReply> => {
    if (command.toUpperCase() === 'SCRIPT' && args[0]?.toUpperCase() === 'LOAD' && args[1] !== undefined) {
      const sha = createHash('sha1').update(args[1]).digest('hex');
      scripts.set(sha, args[1]);
      return sha;
    }
    if (command.toUpperCase() === 'EVALSHA' && args[0] !== undefined) {
      const [sha, ...rest] = args;
      try {
        return (await redis.call('EVALSHA', sha, ...rest)) as RedisReply;
      } catch (error) {
        const script = scripts.get(sha);
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT')) || script === undefined)
          throw error;
        return (await redis.call('EVAL', script, ...rest)) as RedisReply;
      }
    }
    return (await redis.call(command, ...args)) as RedisReply;
  };
}

const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Fixed-window limits kept in Redis, so every API process shares them: per bearer token when the
 * request has one, else per client address (IPv6 by /56). Answers carry the IETF `RateLimit` and
 * `RateLimit-Policy` headers; past the limit the answer is a 429 problem with `Retry-After`.
 */
export function rateLimiter(redis: Redis, prefix: string, limits: Config['rateLimit']): RequestHandler {
  const tokenOf = (header: string | undefined) => /^Bearer\s+(\S+)/i.exec(header ?? '')?.[1];
  return rateLimit({
    windowMs: limits.windowMs,
    limit: (req) => (tokenOf(req.headers.authorization) ? limits.perToken : limits.perIp),
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: (req) => (tokenOf(req.headers.authorization) ? 'token' : 'address'),
    keyGenerator: (req) => {
      const token = tokenOf(req.headers.authorization);
      return token ? `t:${hashToken(token)}` : `a:${ipKeyGenerator(req.ip ?? 'unknown')}`;
    },
    skip: (req) => UNLIMITED_PATHS.has(req.path),
    store: new RateLimitStore({ sendCommand: scriptSafeSender(redis), prefix: `${prefix}:rate:` }),
    handler: (_req, _res, next, options) => {
      next(
        new RateLimitedError(
          `Too many requests: at most ${options.limit} per ${Math.round(limits.windowMs / 1000)} s.`,
          Math.ceil(limits.windowMs / 1000),
        ),
      );
    },
  });
}
