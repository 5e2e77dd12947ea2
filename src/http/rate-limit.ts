import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore as RateLimitStore, type RedisReply } from 'rate-limit-redis';
import type { Config } from '../config.ts';
import { RateLimitedError } from '../errors.ts';
import { principalOf } from './auth.ts';

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

const MOVE_PLAYED = 'rateLimitMovePlayed';

/**
 * Marks a request that played a move the arena asked for. The general limit gives it back: a pull
 * bot in many matches against fast opponents plays as many moves as the arena asks, and a limit on
 * them would make it lose on time. Retries, refused actions and every other request still count.
 */
export function markMovePlayed(res: Response): void {
  res.locals[MOVE_PLAYED] = true;
}

const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

const addressKey = (ip: string | undefined) => `a:${ipKeyGenerator(ip ?? 'unknown')}`;

/** express-rate-limit guesses from a key generator's source whether it groups IPv6 addresses; ours does, in addressKey. */
const validate = { keyGeneratorIpFallback: false } as const;

/**
 * Fixed-window limits kept in Redis, so every API process shares them: per verified principal (a
 * bot, the admin), else per client address (IPv6 by /56). It runs after the principal is resolved
 * (see `identify`): a request with an unknown token counts once against its address and creates
 * no key of its own, so random tokens buy no fresh budgets. Answers carry the IETF `RateLimit` and
 * `RateLimit-Policy` headers; past the limit the answer is a 429 problem with `Retry-After`.
 */
export function rateLimiter(redis: Redis, prefix: string, limits: Config['rateLimit']): RequestHandler {
  return rateLimit({
    windowMs: limits.windowMs,
    limit: (_req, res) => (principalOf(res) ? limits.perToken : limits.perIp),
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: (_req, res) => (principalOf(res) ? 'token' : 'address'),
    keyGenerator: (req, res) => {
      const who = principalOf(res);
      if (who === null) return addressKey(req.ip);
      return who.kind === 'admin' ? 'admin' : `b:${who.botId}`;
    },
    skip: (req) => UNLIMITED_PATHS.has(req.path),
    skipSuccessfulRequests: true,
    requestWasSuccessful: (_req, res) => res.locals[MOVE_PLAYED] === true,
    validate,
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

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * A budget of its own for one costly operation, beside the general limit: `limit` per `windowMs`
 * per `key`. Refused requests (a bad body, a taken name) do not count.
 */
function operationLimiter(
  redis: Redis,
  options: {
    readonly storePrefix: string;
    readonly windowMs: number;
    readonly limit: number;
    readonly key: (req: Request, res: Response) => string;
    readonly refusal: string;
  },
): RequestHandler {
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: false,
    legacyHeaders: false,
    skipFailedRequests: true,
    keyGenerator: options.key,
    validate,
    store: new RateLimitStore({ sendCommand: scriptSafeSender(redis), prefix: options.storePrefix }),
    handler: (_req, _res, next) => {
      next(new RateLimitedError(options.refusal, Math.ceil(options.windowMs / 1000)));
    },
  });
}

/**
 * Registrations per client address and hour: registering is how an attacker multiplies the
 * per-bot caps.
 */
export function registrationLimiter(
  redis: Redis,
  prefix: string,
  limits: Config['rateLimit'],
): RequestHandler {
  return operationLimiter(redis, {
    storePrefix: `${prefix}:rate:register:`,
    windowMs: HOUR_MS,
    limit: limits.registrationsPerHour,
    key: (req) => addressKey(req.ip),
    refusal: `Too many registrations from this address: at most ${limits.registrationsPerHour} bots an hour.`,
  });
}

/** Bot checks per bot (else per address) and minute: each one makes the arena call a URL. */
export function checkLimiter(redis: Redis, prefix: string, limits: Config['rateLimit']): RequestHandler {
  return operationLimiter(redis, {
    storePrefix: `${prefix}:rate:check:`,
    windowMs: MINUTE_MS,
    limit: limits.checksPerMinute,
    key: (req, res) => {
      const who = principalOf(res);
      return who?.kind === 'bot' ? `b:${who.botId}` : addressKey(req.ip);
    },
    refusal: `Too many checks: at most ${limits.checksPerMinute} a minute.`,
  });
}
