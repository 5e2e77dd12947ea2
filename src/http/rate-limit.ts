import { createHash, createHmac } from 'node:crypto';
import type { Socket } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  type AugmentedRequest,
  type IncrementResponse,
  ipKeyGenerator,
  type Options,
  type RateLimitInfo,
  rateLimit,
  type Store,
} from 'express-rate-limit';
import type { Principal } from '../arena/principal.ts';
import type { Config } from '../config.ts';
import { RateLimitedError } from '../model/errors.ts';
import type { RateLimitBatching, RateLimiter } from '../redis/rate-limit-store.ts';
import { BoundedMap } from '../support/bounded-map.ts';
import { principalLabel, principalOf, sessionToken } from './auth.ts';
import { type DoorKey, type DoorRefusal, holdConnection, type RefusedClients } from './refusals.ts';

/**
 * Makes the store that keeps one limiter's counters (the general limit, registrations, checks),
 * shared by every API process; a new one per call, as express-rate-limit wants a store per
 * limiter. With `batching` the store may count in the process and sync in batches; without, it
 * counts every request at Redis. The composition root builds them on Redis (see
 * src/redis/rate-limit-store.ts).
 */
export type RateLimitStores = (limiter: RateLimiter, batching?: RateLimitBatching) => Store;

const GIVE_BACK = 'rateLimitGiveBack';

/**
 * Marks a request that played a move the arena asked for. The general limit gives it back: a pull
 * bot in many matches against fast opponents plays as many moves as the arena asks, and a limit on
 * them would make it lose on time. Retries, refused actions and every other request still count.
 */
export function markMovePlayed(res: Response): void {
  const given = res.locals[GIVE_BACK] as { store: Store; count: RateLimitInfo } | undefined;
  res.locals[GIVE_BACK] = undefined;
  if (given === undefined) return;
  const { resetTime, key } = given.count;
  if (resetTime === undefined || Date.now() < resetTime.getTime()) void given.store.decrement(key);
}

/** Probes and scrapes, never limited: the health checks take no token, the metrics the admin's. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz']);
const ADMIN_PATHS = new Set(['/metrics']);

const ADDRESS_KEY = 'a:';
/**
 * The key of the request's client address (IPv6 by /56), worked out once per request, and once per
 * connection when no proxy header names another address: `req.ip` parses the forwarding header,
 * the grouping tests for IPv6 with a long pattern, and the door, the general limit and an
 * operation's limit each ask, on every request of a kept-alive connection.
 */
function addressKey(req: Request): string {
  let key = req[ADDRESS_KEY_OF];
  if (key !== undefined) return key;
  const socket = req.socket as Socket & { [ADDRESS_KEY_OF]?: string };
  const ofConnection = req.headers['x-forwarded-for'] === undefined;
  key = ofConnection ? socket[ADDRESS_KEY_OF] : undefined;
  if (key === undefined) {
    key = `${ADDRESS_KEY}${ipKeyGenerator(req.ip ?? 'unknown')}`;
    if (ofConnection) socket[ADDRESS_KEY_OF] = key;
  }
  req[ADDRESS_KEY_OF] = key;
  return key;
}
const ADDRESS_KEY_OF = Symbol('rate-limit.address-key');

declare module 'express-serve-static-core' {
  interface Request {
    [ADDRESS_KEY_OF]?: string;
  }
}

/** Where a request came from: see `clientOriginHasher`. */
export type ClientOrigin = (req: Request) => string;

/**
 * Where a request came from, as the address limits group clients (IPv6 by /56), as an HMAC under
 * `key` (the deployment's, kept in Redis: see `RedisStore.clientOriginKey`): what a challenge keeps
 * while active, for the cap per address on challenges aimed at one bot, and what a bot keeps of
 * where it was registered from, so that matchmaking does not pair two bots of one address. Keyed,
 * so that a stored value cannot be turned back into an address by hashing every address; never
 * served, and dropped when the challenge ends or the bot retires.
 */
export function clientOriginHasher(key: string): ClientOrigin {
  return (req) => createHmac('sha256', key).update(addressKey(req)).digest('base64url').slice(0, 16);
}

/** Who a request is for the general limit, before its token is looked up (see `RefusedClients`). */
export const doorKey: DoorKey = (req) => {
  const header = req.headers.authorization;
  if (header) return `t:${header}`;
  // A browser's session cookie stands for its account as a token does (see `identify`).
  const session = sessionToken(req);
  return session === null ? addressKey(req) : `s:${session}`;
};

/** The sentence of the general limit's refusal. */
const generalRefusal = (limits: Config['rateLimit'], perToken: boolean) =>
  `Too many requests: at most ${perToken ? limits.perToken : limits.perIp} per ${Math.round(limits.windowMs / 1000)} s.`;

/**
 * The refusal at the door says what the limiter said, with its IETF RateLimit headers (draft 8):
 * the Authorization header tells which budget it was.
 */
export const doorRefusal =
  (limits: Config['rateLimit']): DoorRefusal =>
  (req, retryAfterSeconds) => {
    const perToken = req.headers.authorization !== undefined;
    const name = perToken ? 'token' : 'address';
    return {
      detail: generalRefusal(limits, perToken),
      headers: {
        RateLimit: `"${name}"; r=0; t=${retryAfterSeconds}`,
        'RateLimit-Policy': `"${name}"; q=${perToken ? limits.perToken : limits.perIp}; w=${Math.ceil(limits.windowMs / 1000)}`,
      },
    };
  };

/**
 * The IETF RateLimit headers (draft 8) as express-rate-limit writes them, but with each key's
 * partition key (a hash of the key) kept: the library hashed it again on every request, a tenth
 * of what a cached read costs besides the response itself.
 */
function draft8Headers(windowMs: number): (req: Request, res: Response, name: string) => void {
  const windowSeconds = Math.ceil(windowMs / 1000);
  // A key's policy never changes (its name and limit follow from the key): written once.
  const policies = new BoundedMap<string, string>(10_000);
  const policyOf = (key: string, name: string, limit: number): string => {
    let found = policies.get(key);
    if (found === undefined) {
      const hex = createHash('sha256').update(key).digest('hex').slice(0, 12);
      found = `"${name}"; q=${limit}; w=${windowSeconds}; pk=:${Buffer.from(hex).toString('base64')}:`;
      policies.set(key, found);
    }
    return found;
  };
  return (req, res, name) => {
    const info = (req as AugmentedRequest).rateLimit;
    if (info === undefined || res.headersSent) return;
    const resetSeconds =
      info.resetTime === undefined
        ? windowSeconds
        : Math.max(0, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000));
    res.setHeader('RateLimit', `"${name}"; r=${info.remaining}; t=${resetSeconds}`);
    res.setHeader('RateLimit-Policy', policyOf(info.key, name, info.limit));
  };
}

/** express-rate-limit guesses from a key generator's source whether it groups IPv6 addresses; ours does, in addressKey. */
const validate = { keyGeneratorIpFallback: false } as const;

/**
 * Fixed-window limits in the shared store, so every API process counts alike: per verified
 * principal (a bot, the admin), else per client address (IPv6 by /56). It runs after the principal
 * is resolved (see `identify`): a request with an unknown token counts once against its address and
 * creates no key of its own, so random tokens buy no fresh budgets. Answers carry the IETF `RateLimit` and
 * `RateLimit-Policy` headers; past the limit the answer is a 429 problem with `Retry-After`.
 *
 * Every request meets this limit, so its store counts in the process and syncs with Redis in
 * batches rather than a script call per request (which even a cached read paid): exact within one
 * process; across processes over by about a tenth of a second of the client's requests to the
 * other processes, never more than half the limit per other process (the bounds are
 * BatchedRateLimitStore's). Every refusal is decided at Redis. The middleware is ours, not
 * express-rate-limit's (which the rarer operation limits below use): its four awaits, a `finish`
 * listener and promise per request and a hash of the key for the headers were a tenth of a cached
 * read's cost. A move played is given back when `markMovePlayed` says so, not on every answer.
 */
export function rateLimiter(
  stores: RateLimitStores,
  limits: Config['rateLimit'],
  door: {
    readonly refused: RefusedClients;
    readonly onFirstRefusal: (req: Request, principal: string) => void;
  },
): RequestHandler {
  const setHeaders = draft8Headers(limits.windowMs);
  const store = stores('requests', {
    limitOf: (key) => (key.startsWith(ADDRESS_KEY) ? limits.perIp : limits.perToken),
  });
  void store.init?.({ windowMs: limits.windowMs } as Options);
  const keyOf = (req: Request, who: Principal | null): string => {
    if (who === null) return addressKey(req);
    if (who.kind === 'admin') return 'admin';
    return who.kind === 'bot' ? `b:${who.botId}` : `acc:${who.accountId}`;
  };
  const refuse = (
    req: Request,
    res: Response,
    next: NextFunction,
    who: Principal | null,
    key: string,
    until: number,
  ) => {
    // Until its window ends the client is refused at the door (a request with a token that
    // matched nothing counted against its address, and so do the address's anonymous ones).
    // One with a key the door reads first (a stale cookie, a token that matched nothing) is
    // remembered under that key too, or it would meet the limiter again each time.
    // An anonymous client's key is its address's (see keyOf).
    const keys = new Set(who === null ? [key, doorKey(req)] : [doorKey(req)]);
    const first = [...keys].map((key) => door.refused.remember(key, until)).some(Boolean);
    if (first) door.onFirstRefusal(req, principalLabel(who));
    holdConnection(res);
    const retryAfter = Math.max(1, Math.ceil((until - Date.now()) / 1000));
    next(new RateLimitedError(generalRefusal(limits, who !== null), retryAfter));
  };
  const counted = (
    req: Request,
    res: Response,
    next: NextFunction,
    who: Principal | null,
    key: string,
    { totalHits, resetTime }: IncrementResponse,
  ) => {
    const limit = who === null ? limits.perIp : limits.perToken;
    const count: RateLimitInfo = {
      limit,
      used: totalHits,
      remaining: Math.max(limit - totalHits, 0),
      resetTime,
      key,
    };
    (req as AugmentedRequest).rateLimit = count;
    setHeaders(req, res, who === null ? 'address' : 'token');
    if (totalHits > limit) {
      refuse(req, res, next, who, key, resetTime?.getTime() ?? Date.now() + limits.windowMs);
      return;
    }
    // What markMovePlayed needs, not a closure made per request. Not req.rateLimit, which an
    // operation limiter (express-rate-limit) on the same request overwrites with its own count.
    res.locals[GIVE_BACK] = { store, count };
    next();
  };
  return (req, res, next) => {
    // A scrape with any other token counts: unlimited, /metrics let anyone try admin tokens at
    // about 350 a second.
    const who = principalOf(res);
    if (UNLIMITED_PATHS.has(req.path) || (ADMIN_PATHS.has(req.path) && who?.kind === 'admin')) {
      next();
      return;
    }
    const key = keyOf(req, who);
    let hits: IncrementResponse | Promise<IncrementResponse>;
    try {
      hits = store.increment(key);
    } catch (error) {
      next(error);
      return;
    }
    // The store answers at once for most requests (see BatchedRateLimitStore): no promise then.
    if (hits instanceof Promise) hits.then((answer) => counted(req, res, next, who, key, answer), next);
    else counted(req, res, next, who, key, hits);
  };
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * A budget of its own for one costly operation, beside the general limit: `limit` per `windowMs`
 * per `key`. Refused requests (a bad body, a taken name) do not count. Counted exactly at Redis on
 * every request: the operations are rare, and the limits small enough that any overshoot matters.
 */
function operationLimiter(
  stores: RateLimitStores,
  options: {
    readonly limiter: Exclude<RateLimiter, 'requests'>;
    readonly windowMs: number;
    readonly limit: number;
    readonly key: (req: Request, res: Response) => string;
    readonly refusal: string;
    /** Requests the budget does not apply to. */
    readonly skip?: (req: Request, res: Response) => boolean;
  },
): RequestHandler {
  const store = stores(options.limiter);
  const limiter = rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: false,
    legacyHeaders: false,
    ...(options.skip ? { skip: options.skip } : {}),
    keyGenerator: options.key,
    validate,
    store,
    handler: (_req, _res, next) => {
      next(new RateLimitedError(options.refusal, Math.ceil(options.windowMs / 1000)));
    },
  });
  // A refused request is given back once its refusal is sent whole, not when the connection closes
  // first (express-rate-limit's skipFailedRequests): a client that reset the connection after its
  // body was read, before the answer, got its bot or match made and its count given back. Every
  // refusal after this budget counted it is given back, a 429 too (another budget's, a cap's such
  // as matches/opponent-busy): it made nothing, and a client retrying as its Retry-After said would
  // otherwise spend this budget on nothing. This budget's own refusal never counted here.
  return (req, res, next) => {
    limiter(req, res, (error?: unknown) => {
      if (error === undefined && !options.skip?.(req, res)) {
        res.once('finish', () => {
          if (res.statusCode >= 400) Promise.resolve(store.decrement(options.key(req, res))).catch(() => {});
        });
      }
      next(error);
    });
  };
}

/**
 * Registrations per client address and hour: registering is how an attacker multiplies the
 * per-bot caps.
 */
export function registrationLimiter(stores: RateLimitStores, limits: Config['rateLimit']): RequestHandler {
  return operationLimiter(stores, {
    limiter: 'registrations',
    windowMs: HOUR_MS,
    limit: limits.registrationsPerHour,
    key: addressKey,
    refusal: `Too many registrations from this address: at most ${limits.registrationsPerHour} bots an hour.`,
  });
}

/** Accounts per client address and hour: an account multiplies bots as registrations do. */
export function accountLimiter(stores: RateLimitStores, limits: Config['rateLimit']): RequestHandler {
  return operationLimiter(stores, {
    limiter: 'accounts',
    windowMs: HOUR_MS,
    limit: limits.accountsPerHour,
    key: addressKey,
    refusal: `Too many accounts from this address: at most ${limits.accountsPerHour} an hour.`,
  });
}

/**
 * Guests per client address and hour: a guest is a bot with a token, so the same reasoning as for
 * registrations holds, with a budget of its own (people reload and clear their browsers).
 */
export function guestLimiter(stores: RateLimitStores, limits: Config['rateLimit']): RequestHandler {
  return operationLimiter(stores, {
    limiter: 'guests',
    windowMs: HOUR_MS,
    limit: limits.guestsPerHour,
    key: addressKey,
    refusal: `Too many guests from this address: at most ${limits.guestsPerHour} an hour.`,
  });
}

/** Per bot token, else per client address. */
function botOrAddressKey(req: Request, res: Response): string {
  const who = principalOf(res);
  return who?.kind === 'bot' ? `b:${who.botId}` : addressKey(req);
}

/** Bot checks per bot (else per address) and minute: each one makes the arena call a URL. */
export function checkLimiter(stores: RateLimitStores, limits: Config['rateLimit']): RequestHandler {
  return operationLimiter(stores, {
    limiter: 'checks',
    windowMs: MINUTE_MS,
    limit: limits.checksPerMinute,
    key: botOrAddressKey,
    refusal: `Too many checks: at most ${limits.checksPerMinute} a minute.`,
  });
}

/**
 * Challenges per bot and hour, and per client address and hour, beside the cap on those running at
 * once: each match is kept, and challenges that end at once would otherwise pile up without end.
 * The admin's matches are not counted.
 */
export function challengeLimiter(stores: RateLimitStores, limits: Config['rateLimit']): RequestHandler[] {
  const skip = (_req: Request, res: Response) => principalOf(res)?.kind !== 'bot';
  return [
    operationLimiter(stores, {
      limiter: 'challenges',
      windowMs: HOUR_MS,
      limit: limits.challengesPerHour,
      key: botOrAddressKey,
      skip,
      refusal: `Too many challenges: at most ${limits.challengesPerHour} an hour.`,
    }),
    // And per address, for all its bots and guests together: an address may register 10 bots and
    // 20 guests an hour, each with a budget of its own, so theirs alone grew without bound.
    operationLimiter(stores, {
      limiter: 'challengesByAddress',
      windowMs: HOUR_MS,
      limit: limits.challengesPerAddressPerHour,
      key: addressKey,
      skip,
      refusal: `Too many challenges from this address: at most ${limits.challengesPerAddressPerHour} an hour.`,
    }),
  ];
}

/** `GET /v1/matches/export` per bot (else per address) and minute: each one streams up to a thousand matches. */
export function exportLimiter(stores: RateLimitStores, limits: Config['rateLimit']): RequestHandler {
  return operationLimiter(stores, {
    limiter: 'exports',
    windowMs: MINUTE_MS,
    limit: limits.exportsPerMinute,
    key: botOrAddressKey,
    refusal: `Too many exports: at most ${limits.exportsPerMinute} a minute.`,
  });
}
