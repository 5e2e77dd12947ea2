import { isIP } from 'node:net';
import { z } from 'zod';
import { usableCores } from './support/machine.ts';
import { StartupError } from './support/startup-error.ts';

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((value) => ['true', '1', 'yes', 'on'].includes(value));

const integer = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

/** An IP address, or one with a port (`1.1.1.1:53`, `[::1]:53`), as `dns.setServers` takes it. */
function isDnsServer(server: string): boolean {
  const withPort = /^\[([^\]]+)\]:(\d{1,5})$/.exec(server) ?? /^([^:]+):(\d{1,5})$/.exec(server);
  if (withPort) return isIP(withPort[1]!) !== 0 && Number(withPort[2]) > 0 && Number(withPort[2]) < 65536;
  return isIP(server) !== 0;
}

/** An entry of express's `trust proxy` list: an IP address, a subnet (`10.0.0.0/8`) or one of its names. */
function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || address === undefined || isIP(address) === 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128);
}

/** A Redis primary behind Sentinel: the sentinels to ask, and the name they know it by. */
export interface SentinelTarget {
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  readonly name: string;
  readonly sentinelPassword?: string;
  readonly password?: string;
}

/** A Redis Cluster: some of its nodes (the rest are learnt from them), and the nodes' password. */
export interface ClusterTarget {
  readonly cluster: readonly { readonly host: string; readonly port: number }[];
  readonly password?: string;
}

/**
 * Where the arena's Redis is: a `redis://` URL for one server, a primary behind Sentinel, or a
 * cluster. A plain value, so that it crosses into worker threads as it is;
 * connections/redis-connection.ts makes the connections.
 */
export type RedisTarget = string | SentinelTarget | ClusterTarget;

/** A duration as `30s`, `5m`, `1h` or `1d`, in milliseconds. */
const duration = z
  .string()
  .regex(/^\d{1,6}[smhd]$/, 'must be a whole number of s, m, h or d, as 5m or 1h')
  .transform(
    (text) =>
      Number(text.slice(0, -1)) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[text.at(-1) as 's'],
  );

/** One recurring event of EVENTS: a tournament the arena creates, opens for entries and starts by itself. */
const eventSeries = z
  .strictObject({
    /** Names the series in its events' `series` field and in their ids; unique among the series. */
    key: z.string().regex(/^[a-z0-9-]{1,32}$/, 'must be 1-32 of a-z, 0-9 and -'),
    name: z.string().min(1).max(60),
    format: z.enum(['round-robin', 'swiss']),
    /** How often one starts: the starts are the multiples of `every` since the epoch (UTC), plus `at`. */
    every: duration.refine((ms) => ms >= 10_000, 'must be at least 10s'),
    at: duration.default(0),
    rounds: z.number().int().min(1).max(50).optional(),
    minEntrants: z.number().int().min(2).max(64).default(4),
    gamesPerPairing: z.union([z.literal(1), z.literal(2)]).default(2),
    openings: z.enum(['standard', 'balanced']).default('balanced'),
    rated: z.boolean().default(true),
    minRatedGames: z.number().int().min(0).max(100_000).default(0),
    /** Enter the house bots in each (the demo's events, so that one runs with nobody else there). */
    houseBots: z.boolean().default(false),
  })
  .superRefine((series, ctx) => {
    if (series.at >= series.every) ctx.addIssue({ code: 'custom', message: 'at must be shorter than every' });
    if ((series.format === 'swiss') !== (series.rounds !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'rounds is required for swiss, and only for swiss' });
    }
    // A Swiss field of n plays at most n - 1 rounds (n if odd) without a rematch: the smallest field must.
    const fewest = series.minEntrants % 2 === 0 ? series.minEntrants - 1 : series.minEntrants;
    if (series.rounds !== undefined && series.rounds > fewest) {
      ctx.addIssue({
        code: 'custom',
        message: `${series.minEntrants} entrants play at most ${fewest} Swiss rounds`,
      });
    }
  });

/** The events `npm start` schedules unless EVENTS says otherwise: an hourly round robin and a daily Swiss. */
export const DEFAULT_EVENTS = JSON.stringify([
  {
    key: 'hourly',
    name: 'Hourly round robin',
    format: 'round-robin',
    every: '1h',
    minEntrants: 3,
    minRatedGames: 5,
  },
  {
    key: 'daily',
    name: 'Daily Swiss',
    format: 'swiss',
    rounds: 5,
    every: '1d',
    at: '18h',
    minEntrants: 6,
    minRatedGames: 5,
  },
]);

/** EVENTS: a JSON array of event series, or `off` (or `[]`) for none. */
const eventsSetting = z
  .string()
  .default(DEFAULT_EVENTS)
  .transform((text, ctx) => {
    if (['off', 'none', ''].includes(text.trim())) return [];
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of event series, or off' });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(eventSeries)
      .max(20)
      .refine((all) => new Set(all.map((s) => s.key)).size === all.length, 'each series needs its own key'),
  );

/** A comma-separated list of `host:port` (IPv6 hosts in brackets); unset or blank is none. */
const hostPorts = z
  .string()
  .optional()
  .transform((list, ctx) => {
    if (list === undefined || list.trim() === '') return undefined;
    const nodes = list.split(',').map((node) => /^\s*([^\s:]+|\[[^\]]+\]):(\d{1,5})\s*$/.exec(node));
    if (nodes.some((node) => node === null || Number(node[2]) === 0 || Number(node[2]) > 65535)) {
      ctx.addIssue({ code: 'custom', message: 'must be host:port pairs, comma-separated' });
      return z.NEVER;
    }
    return nodes.map((node) => ({ host: node![1]!.replace(/^\[|\]$/g, ''), port: Number(node![2]) }));
  });

const envSchema = z.object({
  PORT: integer(3000, 0),
  HOST: z.string().default('0.0.0.0'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /** Every Redis key and BullMQ queue of the arena lives under this prefix. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
    .default('arena'),
  /** Start a local redis-server (data under ./data, AOF on) when none answers at REDIS_URL. */
  REDIS_AUTOSTART: flag.default(true),
  /**
   * A primary behind Sentinel instead of REDIS_URL: the sentinels (`host:port,host:port,…`) and the
   * name they know the primary by. Every connection follows the primary they promote.
   */
  REDIS_SENTINELS: hostPorts,
  REDIS_SENTINEL_MASTER: z.string().min(1).optional(),
  /** The sentinels' own password, when they need one. */
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  /** The primary's password under Sentinel, or the nodes' in a cluster (with REDIS_URL, put it in the URL). */
  REDIS_PASSWORD: z.string().min(1).optional(),
  /**
   * Replicas a committed match result waits for (WAIT) before the worker moves on: 1 by default
   * under Sentinel, 0 (none) on one server.
   */
  REDIS_WAIT_REPLICAS: z.coerce.number().int().min(0).max(16).optional(),
  /** The longest such a wait lasts; a replica that falls short pauses the waits for 10 s. */
  REDIS_WAIT_MS: integer(500, 1),
  /**
   * A Redis Cluster instead of REDIS_URL: some of its nodes (`host:port,…`), from which every
   * connection learns the rest. The arena's keys then share one hash tag (see README).
   */
  REDIS_CLUSTER_NODES: hostPorts,
  REDIS_DATA_DIR: z.string().default('./data'),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional(),
  /**
   * The key the solo game's token layouts are drawn with. Unset, the deployment makes one in Redis
   * at first start and every process shares it; set it to keep layouts across a Redis wiped clean.
   */
  SOLO_SECRET: z.string().min(16, 'SOLO_SECRET must be at least 16 characters').optional(),
  ARENA_ALLOW_PRIVATE_BOT_URLS: flag.default(false),
  /**
   * The DNS servers bots' host names are asked of, comma-separated (`1.1.1.1,[2606:4700::1111]:53`);
   * the system's by default. Public servers keep bots from learning names only the arena's own
   * resolver knows. Unused with ARENA_ALLOW_PRIVATE_BOT_URLS, which resolves as the OS does.
   */
  BOT_DNS_SERVERS: z
    .string()
    .default('')
    .transform((list) =>
      list
        .split(',')
        .map((server) => server.trim())
        .filter(Boolean),
    )
    .refine((servers) => servers.every(isDnsServer), 'must be IP addresses, each with an optional :port'),
  /** Matchmaking is where ratings come from, so it is on unless turned off. */
  MATCHMAKING_ENABLED: flag.default(true),
  MATCHMAKING_INTERVAL_MS: integer(10_000, 100),
  /** A bot is never in more than this many queued or running matches made by the matchmaker. */
  MATCHMAKING_MAX_CONCURRENT_PER_BOT: integer(2, 1),
  MATCHMAKING_MAX_NEW_MATCHES: integer(20, 1),
  MATCHMAKING_NEAREST: integer(3, 1),
  MATCHMAKING_FAR_PROBABILITY: z.coerce.number().min(0).max(1).default(0.1),
  /** Pair house bots with each other (the demo does; in production they only meet real bots). */
  MATCHMAKING_HOUSE_VS_HOUSE: flag.default(false),
  /** A bot whose matches end by its faults this many times in a row is paused (0: never). */
  MATCHMAKING_PAUSE_AFTER_FAULTS: integer(3, 0),
  /**
   * How long a first pause lasts; each pause that starts within MATCHMAKING_PAUSE_MAX_HOURS of the
   * last one's end lasts four times the one before, up to that many hours. Only time (or the
   * admin) lifts a pause, never an edit to the bot.
   */
  MATCHMAKING_PAUSE_MINUTES: z.coerce.number().positive().default(5),
  MATCHMAKING_PAUSE_MAX_HOURS: z.coerce.number().positive().default(24),
  /**
   * Let bots registered from one client address, or whose URLs name one host, meet in matchmaking
   * and enter one rated tournament by themselves (the demo does; in production one person's bots
   * could feed one of them rated wins).
   */
  ALLOW_SAME_OPERATOR_GAMES: flag.default(false),
  /**
   * `balanced`: each pairing is a paired game, two rated matches from one balanced opening drawn at
   * random, colours swapped, so neither bot gains from its colour or from the opening (needs
   * MATCHMAKING_MAX_CONCURRENT_PER_BOT and MATCHMAKING_MAX_NEW_MATCHES of 2 or more). `standard`:
   * one match a pairing, from the start position.
   */
  MATCHMAKING_OPENINGS: z.enum(['balanced', 'standard']).default('balanced'),
  /**
   * The tournaments the arena schedules by itself (README "Scheduled events"): a JSON array of
   * series, each opened for entries until it starts; `off` for none.
   */
  EVENTS: eventsSetting,
  /** How often the workers look for an event to create, start or cancel: how late a start may be. */
  EVENTS_TICK_MS: integer(5000, 100),
  /** How often the Bradley–Terry ratings are recomputed. */
  STRENGTH_INTERVAL_MS: integer(60_000, 100),
  /** Register the house bots (random, greedy, two alpha-betas) at start. */
  HOUSE_BOTS: flag.default(true),
  /** `npm start` runs the worker pool in the same process unless this is off. */
  WORKERS_IN_PROCESS: flag.default(true),
  /**
   * Matches one worker process plays at once. A match mostly waits on a bot (a timer, a socket, a
   * shared subscription), so this is high: a bot that stalls its matches must not hold up others'.
   * 500: on 2 cores shared with the bots and Redis, against 200 ms bots, all of the ideal move rate
   * with event-loop delay p99 17-22 ms; 1000 gives 91-98% with p99 20-35 ms, most of it the threads
   * waiting for a CPU (npm run bench:concurrency, README "Workers").
   */
  WORKER_CONCURRENCY: integer(500, 1),
  /**
   * Threads a worker process plays its matches on, each with its own event loop and Redis
   * connections, sharing WORKER_CONCURRENCY; 0 plays them on the process' own thread. By default one
   * per core it may use (under a container's CPU quota, its whole CPUs; at most 4): a thread's loop
   * stays responsive only while it is mostly idle.
   */
  WORKER_THREADS: integer(Math.min(usableCores(), 4), 0),
  /** The most memory a pool thread's young generation may grow to (V8 grows it only under load). */
  WORKER_THREAD_YOUNG_GENERATION_MB: integer(128, 1),
  /**
   * A worker handles its bots' answers in slices of at most this much work per event-loop
   * iteration, so that a wave of answers does not hold up its timers; 0 handles each as it comes.
   */
  WORKER_TURN_SLICE_MS: integer(2, 0),
  /** A match whose worker died is taken over by another after this long. */
  WORKER_LOCK_MS: integer(30_000, 1000),
  /** How long a challenge waits behind the arena's own matches at most before it queues as they do. */
  CHALLENGE_QUEUE_WAIT_MS: integer(120_000, 0),
  TIME_LIMIT_MS_MIN: integer(50, 1),
  TIME_LIMIT_MS_MAX: integer(30_000, 1),
  TIME_LIMIT_MS_DEFAULT: integer(1000, 1),
  OVERAGE_MS_MAX: integer(60_000, 0),
  OVERAGE_MS_DEFAULT: integer(5000, 0),
  /** The time control of every rated match: players never choose it. */
  RATED_TIME_LIMIT_MS: integer(1000, 1),
  RATED_OVERAGE_MS: integer(5000, 0),
  /** Challenges (matches created with a bot token) one bot may have queued or running at once. */
  MAX_ACTIVE_CHALLENGES_PER_BOT: integer(2, 0),
  /**
   * Challenges aimed at one bot that may be queued or running at once, whoever made them (house
   * bots, played in the worker, take any number): many makers at once could load its server.
   */
  MAX_CHALLENGES_AGAINST_BOT: integer(8, 1),
  /**
   * Of those, how many may come from one client address (grouped as the rate limits group them),
   * whatever bots and guests made them: else one address could hold all of a bot's places.
   */
  MAX_CHALLENGES_AGAINST_BOT_PER_ADDRESS: integer(2, 1),
  /** Event streams plus long polls one bot may hold open at once. */
  MAX_STREAMS_PER_BOT: integer(4, 1),
  /** Challenges the bots of one account may have pending, queued or running at once, together. */
  MAX_ACTIVE_CHALLENGES_PER_OWNER: integer(6, 1),
  /** How long a challenge to a bot that asks (`challenges: ask`) waits for its answer before it expires. */
  CHALLENGE_ANSWER_MS: integer(60_000, 1000),
  /** Active bots one account may have. */
  MAX_BOTS_PER_ACCOUNT: integer(20, 1),
  /** Accounts one client address may open per hour. */
  RATE_LIMIT_ACCOUNTS_PER_HOUR: integer(5, 1),
  /** How long a browser's signed-in session lasts (fractions allowed). */
  SESSION_TTL_HOURS: z.coerce.number().positive().default(168),
  /**
   * The arena's public address (`https://arena.example.org`): the origin passkeys are bound to and
   * OpenID sign-in returns to. Unset, each request's own host is taken, which is right for local
   * development and behind a proxy that keeps the Host header.
   */
  PUBLIC_URL: z
    .string()
    .url()
    .refine((url) => /^https?:\/\/[^/]+\/?$/.test(url), 'must be an http(s) origin, without a path')
    .optional(),
  /** Sign-in through an OpenID Connect provider, when all three are set. */
  OIDC_ISSUER: z.string().url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** The provider's name on the sign-in button. */
  OIDC_NAME: z.string().min(1).max(40).default('OpenID Connect'),
  /** Bots one client address may register per hour. */
  RATE_LIMIT_REGISTRATIONS_PER_HOUR: integer(10, 1),
  /** Guests (POST /v1/guests) one client address may register per hour. */
  RATE_LIMIT_GUESTS_PER_HOUR: integer(20, 1),
  /** A guest that has not played for this many hours is retired by the workers' sweep. */
  GUEST_TTL_HOURS: z.coerce.number().positive().default(24),
  /**
   * The longest per-move limit of a match a guest (a person at /play) plays in, and the limit such
   * a match gets when it names none. Bots' own matches keep TIME_LIMIT_MS_MAX.
   */
  GUEST_TIME_LIMIT_MS_MAX: integer(120_000, 1),
  /**
   * The longest per-move limit a bot's challenge may ask for (10 minutes): agents that think with a
   * language model take minutes, and the challenged bot consents by its challenge policy. The
   * arena's own matches (matchmaking, tournaments, the admin's) keep TIME_LIMIT_MS_MAX.
   */
  CHALLENGE_TIME_LIMIT_MS_MAX: integer(600_000, 1),
  /**
   * The slow pool: rated matches at a slow time control (60 s a move plus a 60 s bank by default),
   * which matchmaking makes among the bots that opt in (`slowPool`), rated apart from the arena's
   * pool, so that agents that think slowly are ranked among themselves. Off: no slow round.
   */
  SLOW_POOL_ENABLED: flag.default(true),
  SLOW_POOL_TIME_LIMIT_MS: integer(60_000, 1),
  SLOW_POOL_OVERAGE_MS: integer(60_000, 0),
  GUEST_TIME_LIMIT_MS_DEFAULT: integer(60_000, 1),
  /** Calls of POST /v1/bots/me/check one bot may make per minute: each one calls its URL. */
  RATE_LIMIT_CHECKS_PER_MINUTE: integer(6, 1),
  /**
   * Challenges (POST /v1/matches with a bot token) one bot may make per hour. Each is kept for good,
   * and one that ends at once (a 50 ms clock, a side that never moves) made 560 a minute possible.
   */
  RATE_LIMIT_CHALLENGES_PER_HOUR: integer(60, 1),
  /**
   * Challenges all the bots and guests of one client address may make per hour together: the
   * per-bot budget times the bots and guests an address may register grew with the square of time.
   */
  RATE_LIMIT_CHALLENGES_PER_ADDRESS_PER_HOUR: integer(300, 1),
  /** Calls of GET /v1/matches/export one bot (else client address) may make per minute: each streams many matches. */
  RATE_LIMIT_EXPORTS_PER_MINUTE: integer(10, 1),
  RATE_LIMIT_WINDOW_MS: integer(60_000, 1000),
  /** Requests a bot token (or the admin token) may make per window. */
  RATE_LIMIT_PER_TOKEN: integer(600, 1),
  /** Requests a client address may make per window without a token. */
  RATE_LIMIT_PER_IP: integer(300, 1),
  /**
   * Which proxies' `X-Forwarded-For` to believe (express's `trust proxy`): none by default, for a
   * forwarded address is only as true as the proxy that wrote it, and every per-address control
   * (registrations, guests, streams, challenge budgets, the same-operator rule) follows it. `true`
   * (every hop: never in production), a hop count, or addresses, subnets and the names `loopback`,
   * `linklocal`, `uniquelocal`, comma-separated.
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, ctx) => {
      const trimmed = value.trim();
      if (trimmed === 'false' || trimmed === '0' || trimmed === '') return false;
      if (trimmed === 'true') return true;
      if (/^\d+$/.test(trimmed)) return Number(trimmed);
      const entries = trimmed.split(',').map((entry) => entry.trim());
      const bad = entries.filter((entry) => !isProxyAddress(entry));
      if (bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `not an address, subnet or proxy name: ${bad.join(', ')}` });
        return z.NEVER;
      }
      return entries.join(',');
    }),
  /** Serve /metrics on this port, without a token, and not on PORT (which then answers 404). */
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  /** Open connections one client address may hold; past it, the newest is closed. */
  MAX_CONNECTIONS_PER_ADDRESS: integer(64, 1),
  /** Spectator event streams (GET /v1/matches/{id}/events) one client address may hold at once, per API process. */
  MAX_SPECTATOR_STREAMS_PER_ADDRESS: integer(16, 1),
  /** A client must send its request headers within this long (slowloris), */
  HTTP_HEADERS_TIMEOUT_MS: integer(10_000, 1000),
  /** and its whole request (headers and body) within this long. Event streams and long polls are answers, not requests: not cut. */
  HTTP_REQUEST_TIMEOUT_MS: integer(30_000, 1000),
  /** An idle keep-alive connection is closed after this long. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integer(5000, 100),
  HTTP_LISTEN_BACKLOG: integer(4096, 1),
  SHUTDOWN_GRACE_MS: integer(10_000, 0),
  /** After the grace period, how long a shutdown may still take before the process exits with 1. */
  SHUTDOWN_STALL_MS: integer(10_000, 0),
  /** Silence after which the event stream sends a keep-alive comment. */
  SSE_KEEPALIVE_MS: integer(15_000, 100),
  ELO_START: integer(1500, 0),
  ELO_K_PROVISIONAL: integer(40, 1),
  ELO_K: integer(20, 1),
  /** A bot's rating is provisional (and moves with ELO_K_PROVISIONAL) for this many rated games. */
  ELO_PROVISIONAL_GAMES: integer(30, 0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Validate every response against openapi.yaml (on in tests; costs time in production). */
  OPENAPI_VALIDATE_RESPONSES: flag.default(false),
  /**
   * How long a leaderboard page may be served from memory: the page is at most this stale after a
   * rating changes. 0 reads Redis on every request.
   */
  LEADERBOARD_CACHE_MS: integer(1000, 0),
  /** Rated games a bot needs to be ranked; the leaderboard lists bots with fewer apart, unranked. */
  LEADERBOARD_MIN_GAMES: integer(5, 0),
  /**
   * How long a spectator's (anonymous) view of a match's state may be served from memory. Players
   * and the admin always read Redis; a spectator's view is at most this stale. 0 is off.
   */
  SPECTATOR_STATE_CACHE_MS: integer(250, 0),
});

export type Env = z.input<typeof envSchema>;

/** Every environment variable the arena reads (the README documents each one). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/**
 * The environment's variables, checked against each other (an issue without a path names them),
 * then shaped into the configuration the code reads: `Config` is this schema's output, so each
 * variable is named once in the schema and once where it lands.
 */
const configSchema = envSchema.transform((e, ctx) => {
  const timeLimit = { min: e.TIME_LIMIT_MS_MIN, max: e.TIME_LIMIT_MS_MAX, default: e.TIME_LIMIT_MS_DEFAULT };
  const overage = { min: 0, max: e.OVERAGE_MS_MAX, default: e.OVERAGE_MS_DEFAULT };
  if (!(timeLimit.min <= timeLimit.default && timeLimit.default <= timeLimit.max)) {
    return issue(ctx, 'need TIME_LIMIT_MS_MIN <= TIME_LIMIT_MS_DEFAULT <= TIME_LIMIT_MS_MAX');
  }
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    return issue(ctx, 'need HTTP_HEADERS_TIMEOUT_MS <= HTTP_REQUEST_TIMEOUT_MS');
  }
  if (overage.default > overage.max) {
    return issue(ctx, 'need OVERAGE_MS_DEFAULT <= OVERAGE_MS_MAX');
  }
  if (
    e.MATCHMAKING_OPENINGS === 'balanced' &&
    (e.MATCHMAKING_MAX_CONCURRENT_PER_BOT < 2 || e.MATCHMAKING_MAX_NEW_MATCHES < 2)
  ) {
    return issue(
      ctx,
      'MATCHMAKING_OPENINGS=balanced makes two matches a pairing: need MATCHMAKING_MAX_CONCURRENT_PER_BOT >= 2 and MATCHMAKING_MAX_NEW_MATCHES >= 2 (or MATCHMAKING_OPENINGS=standard)',
    );
  }
  if (e.SLOW_POOL_TIME_LIMIT_MS > e.CHALLENGE_TIME_LIMIT_MS_MAX || e.SLOW_POOL_OVERAGE_MS > overage.max) {
    return issue(
      ctx,
      'need SLOW_POOL_TIME_LIMIT_MS <= CHALLENGE_TIME_LIMIT_MS_MAX and SLOW_POOL_OVERAGE_MS <= OVERAGE_MS_MAX',
    );
  }
  if (e.CHALLENGE_TIME_LIMIT_MS_MAX < timeLimit.max) {
    return issue(ctx, 'need TIME_LIMIT_MS_MAX <= CHALLENGE_TIME_LIMIT_MS_MAX');
  }
  const guestTimeLimit = { max: e.GUEST_TIME_LIMIT_MS_MAX, default: e.GUEST_TIME_LIMIT_MS_DEFAULT };
  if (!(timeLimit.min <= guestTimeLimit.default && guestTimeLimit.default <= guestTimeLimit.max)) {
    return issue(ctx, 'need TIME_LIMIT_MS_MIN <= GUEST_TIME_LIMIT_MS_DEFAULT <= GUEST_TIME_LIMIT_MS_MAX');
  }
  const rated = { timeLimitMs: e.RATED_TIME_LIMIT_MS, overageMs: e.RATED_OVERAGE_MS };
  if (
    rated.timeLimitMs < timeLimit.min ||
    rated.timeLimitMs > timeLimit.max ||
    rated.overageMs > overage.max
  ) {
    return issue(
      ctx,
      'RATED_TIME_LIMIT_MS and RATED_OVERAGE_MS must lie within the TIME_LIMIT_MS and OVERAGE_MS bounds',
    );
  }
  if (e.MATCHMAKING_PAUSE_MINUTES * 60 > e.MATCHMAKING_PAUSE_MAX_HOURS * 3600) {
    return issue(ctx, 'need MATCHMAKING_PAUSE_MINUTES <= MATCHMAKING_PAUSE_MAX_HOURS (in the same unit)');
  }
  const oidcSet = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].filter(
    (v) => v !== undefined,
  ).length;
  if (oidcSet !== 0 && oidcSet !== 3) {
    return issue(
      ctx,
      'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three or none',
    );
  }
  if ((e.REDIS_SENTINELS === undefined) !== (e.REDIS_SENTINEL_MASTER === undefined)) {
    return issue(ctx, 'REDIS_SENTINELS and REDIS_SENTINEL_MASTER go together: set both or neither');
  }
  if (e.REDIS_CLUSTER_NODES !== undefined && e.REDIS_SENTINELS !== undefined) {
    return issue(ctx, 'REDIS_CLUSTER_NODES and REDIS_SENTINELS are two topologies: set one or neither');
  }
  const sentinel =
    e.REDIS_SENTINELS === undefined
      ? undefined
      : {
          sentinels: e.REDIS_SENTINELS,
          name: e.REDIS_SENTINEL_MASTER!,
          ...(e.REDIS_SENTINEL_PASSWORD === undefined ? {} : { sentinelPassword: e.REDIS_SENTINEL_PASSWORD }),
          ...(e.REDIS_PASSWORD === undefined ? {} : { password: e.REDIS_PASSWORD }),
        };
  const cluster =
    e.REDIS_CLUSTER_NODES === undefined
      ? undefined
      : {
          cluster: e.REDIS_CLUSTER_NODES,
          ...(e.REDIS_PASSWORD === undefined ? {} : { password: e.REDIS_PASSWORD }),
        };
  const replicated = sentinel !== undefined || cluster !== undefined;
  const guestTtlMs = Math.round(e.GUEST_TTL_HOURS * 3_600_000);
  return {
    port: e.PORT,
    host: e.HOST,
    redis: {
      url: e.REDIS_URL,
      /** Where every connection goes: REDIS_URL, the primary behind REDIS_SENTINELS, or a cluster. */
      target: (cluster ?? sentinel ?? e.REDIS_URL) as RedisTarget,
      // On a cluster every key the arena's scripts and transactions touch together must lie in one
      // hash slot: the prefix becomes a hash tag (docs/cluster.md).
      prefix: cluster === undefined ? e.REDIS_PREFIX : `{${e.REDIS_PREFIX}}`,
      // A local server is started only for a single REDIS_URL: a Sentinel set or a cluster is the operator's.
      autostart: e.REDIS_AUTOSTART && !replicated,
      replicaWait: {
        replicas: e.REDIS_WAIT_REPLICAS ?? (replicated ? 1 : 0),
        timeoutMs: e.REDIS_WAIT_MS,
      },
      dataDir: e.REDIS_DATA_DIR,
    },
    adminToken: e.ADMIN_TOKEN,
    soloSecret: e.SOLO_SECRET,
    allowPrivateBotUrls: e.ARENA_ALLOW_PRIVATE_BOT_URLS,
    botDnsServers: e.BOT_DNS_SERVERS,
    matchmaking: {
      enabled: e.MATCHMAKING_ENABLED,
      intervalMs: e.MATCHMAKING_INTERVAL_MS,
      maxConcurrentPerBot: e.MATCHMAKING_MAX_CONCURRENT_PER_BOT,
      maxNewMatches: e.MATCHMAKING_MAX_NEW_MATCHES,
      nearest: e.MATCHMAKING_NEAREST,
      farProbability: e.MATCHMAKING_FAR_PROBABILITY,
      houseVsHouse: e.MATCHMAKING_HOUSE_VS_HOUSE,
      pauses: {
        afterFaults: e.MATCHMAKING_PAUSE_AFTER_FAULTS,
        backoff: {
          firstMs: Math.round(e.MATCHMAKING_PAUSE_MINUTES * 60_000),
          maxMs: Math.round(e.MATCHMAKING_PAUSE_MAX_HOURS * 3_600_000),
        },
      },
      openings: e.MATCHMAKING_OPENINGS,
    },
    sameOperatorGames: e.ALLOW_SAME_OPERATOR_GAMES,
    strengthIntervalMs: e.STRENGTH_INTERVAL_MS,
    slowPool: { enabled: e.SLOW_POOL_ENABLED },
    events: { series: e.EVENTS, tickMs: e.EVENTS_TICK_MS },
    houseBots: e.HOUSE_BOTS,
    workers: {
      inProcess: e.WORKERS_IN_PROCESS,
      concurrency: e.WORKER_CONCURRENCY,
      threads: e.WORKER_THREADS,
      turnSliceMs: e.WORKER_TURN_SLICE_MS,
      threadYoungGenerationMb: e.WORKER_THREAD_YOUNG_GENERATION_MB,
      lockDurationMs: e.WORKER_LOCK_MS,
      challengeWaitMs: e.CHALLENGE_QUEUE_WAIT_MS,
    },
    limits: {
      timeLimitMs: timeLimit,
      overageMs: overage,
      rated,
      guest: { timeLimitMs: guestTimeLimit },
      challengeTimeLimitMs: { max: e.CHALLENGE_TIME_LIMIT_MS_MAX },
      slowPool: { timeLimitMs: e.SLOW_POOL_TIME_LIMIT_MS, overageMs: e.SLOW_POOL_OVERAGE_MS },
      maxActiveChallengesPerBot: e.MAX_ACTIVE_CHALLENGES_PER_BOT,
      maxChallengesAgainstBot: e.MAX_CHALLENGES_AGAINST_BOT,
      maxChallengesAgainstBotPerAddress: e.MAX_CHALLENGES_AGAINST_BOT_PER_ADDRESS,
      maxStreamsPerBot: e.MAX_STREAMS_PER_BOT,
      maxActiveChallengesPerOwner: e.MAX_ACTIVE_CHALLENGES_PER_OWNER,
      challengeAnswerMs: e.CHALLENGE_ANSWER_MS,
    },
    accounts: {
      maxBots: e.MAX_BOTS_PER_ACCOUNT,
      sessionTtlMs: Math.round(e.SESSION_TTL_HOURS * 3_600_000),
    },
    publicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
    oidc:
      e.OIDC_ISSUER === undefined
        ? undefined
        : {
            issuer: e.OIDC_ISSUER,
            clientId: e.OIDC_CLIENT_ID!,
            clientSecret: e.OIDC_CLIENT_SECRET!,
            name: e.OIDC_NAME,
          },
    rateLimit: {
      windowMs: e.RATE_LIMIT_WINDOW_MS,
      perToken: e.RATE_LIMIT_PER_TOKEN,
      perIp: e.RATE_LIMIT_PER_IP,
      registrationsPerHour: e.RATE_LIMIT_REGISTRATIONS_PER_HOUR,
      guestsPerHour: e.RATE_LIMIT_GUESTS_PER_HOUR,
      checksPerMinute: e.RATE_LIMIT_CHECKS_PER_MINUTE,
      exportsPerMinute: e.RATE_LIMIT_EXPORTS_PER_MINUTE,
      challengesPerHour: e.RATE_LIMIT_CHALLENGES_PER_HOUR,
      challengesPerAddressPerHour: e.RATE_LIMIT_CHALLENGES_PER_ADDRESS_PER_HOUR,
      accountsPerHour: e.RATE_LIMIT_ACCOUNTS_PER_HOUR,
    },
    rating: {
      start: e.ELO_START,
      kProvisional: e.ELO_K_PROVISIONAL,
      k: e.ELO_K,
      provisionalGames: e.ELO_PROVISIONAL_GAMES,
    },
    trustProxy: e.TRUST_PROXY,
    metricsPort: e.METRICS_PORT,
    http: {
      maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      listenBacklog: e.HTTP_LISTEN_BACKLOG,
    },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    shutdownStallMs: e.SHUTDOWN_STALL_MS,
    sseKeepAliveMs: e.SSE_KEEPALIVE_MS,
    maxSpectatorStreamsPerAddress: e.MAX_SPECTATOR_STREAMS_PER_ADDRESS,
    logLevel: e.LOG_LEVEL,
    validateResponses: e.OPENAPI_VALIDATE_RESPONSES,
    leaderboardCacheMs: e.LEADERBOARD_CACHE_MS,
    leaderboardMinGames: e.LEADERBOARD_MIN_GAMES,
    spectatorStateCacheMs: e.SPECTATOR_STATE_CACHE_MS,
    guests: { ttlMs: guestTtlMs, sweepIntervalMs: guestSweepIntervalMs(guestTtlMs) },
  };
});

/** Reports a rule between variables, for the message of `loadConfig`; its value is never used. */
function issue(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The arena's configuration, as `loadConfig` makes it from the environment. */
export type Config = DeepReadonly<z.output<typeof configSchema>>;

/** A configuration problem found at start-up; the message names every bad variable. */
export class ConfigError extends StartupError {}

/**
 * The BullMQ prefix of an arena whose keys are under `prefix`: the queue's keys never collide with
 * the arena's. On a cluster, where `prefix` is a hash tag (`{arena}`), the queue takes a tag of its
 * own (`{arena-queue}`), as BullMQ's docs ask: its keys, and the scripts BullMQ runs for every job,
 * lie in another slot than the arena's, on another primary wherever the slots' split puts the two
 * apart (for the default prefix, with an even three-way split). No script of the arena's touches
 * the queue's keys and its own together.
 */
export function bullPrefix(prefix: string): string {
  return tagBeside(prefix, 'queue') ?? `${prefix}:bull`;
}

/**
 * The prefix of the rate limits' counters of an arena under `prefix` (src/redis/keys.ts `rateLimit`
 * puts them under `<this>:rate:`): the arena's own on one server; on a cluster a hash tag of their
 * own (`{arena-rate}`), as the queue has. Every API request counts in them, and one counter per
 * client address is kept for a window: they need not load the arena's primary, and no script
 * touches them and the arena's keys together.
 */
export function rateLimitPrefix(prefix: string): string {
  return tagBeside(prefix, 'rate') ?? prefix;
}

/**
 * The prefix of the keys of signing in (sessions, passkeys, WebAuthn ceremonies, OpenID subjects,
 * and each account's sets of them: src/redis/keys.ts `isSignInKey`) of an arena under `prefix`:
 * the arena's own on one server; on a cluster a hash tag of their own (`{arena-sign-in}`). Only the
 * sign-in store writes them, and never with another key of the arena's; a browser's session is
 * read on each of its requests.
 */
export function signInPrefix(prefix: string): string {
  return tagBeside(prefix, 'sign-in') ?? prefix;
}

/** For a prefix that is a hash tag (`{arena}`, on a cluster), the tag `{arena-<name>}`; else undefined. */
function tagBeside(prefix: string, name: string): string | undefined {
  const tag = /^\{(.+)\}$/.exec(prefix);
  return tag === null ? undefined : `{${tag[1]}-${name}}`;
}

/**
 * Parses the arena's configuration from environment variables, once, at start-up. Nothing else in
 * the code base reads `process.env`.
 *
 * @example
 * const config = loadConfig({ PORT: '8080', ADMIN_TOKEN: 'a-long-admin-secret' });
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const rules = parsed.error.issues.filter((issue) => issue.path.length === 0);
    if (rules.length > 0)
      throw new ConfigError(`Invalid configuration: ${rules.map((i) => i.message).join('; ')}`);
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data);
}

/**
 * How often idle guests are looked for: a quarter of their time to live, so one is retired at most
 * a quarter late, but never more often than every second nor less often than every ten minutes.
 */
function guestSweepIntervalMs(ttlMs: number): number {
  return Math.min(600_000, Math.max(1000, Math.round(ttlMs / 4)));
}
