import keySlot from 'cluster-key-slot';
import { Cluster, type ClusterOptions, Redis, type RedisOptions, SentinelConnector } from 'ioredis';
import type { ClusterTarget, RedisTarget } from '../config.ts';
import { StartupError } from '../support/startup-error.ts';

/** A connection to the arena's Redis: one server's (also behind Sentinel) or a cluster's. */
export type RedisClient = Redis | Cluster;

/**
 * Every Redis connection of the arena is made here, from its target (one server, Sentinel or a
 * cluster), by role.
 * - `api`: fails fast (no offline queue, a command timeout), so a request answers 503 at once
 *   while Redis is down instead of hanging; it keeps reconnecting in the background. Commands sent
 *   in one tick of the event loop leave in one write (auto-pipelining): thousands of bots opening
 *   streams and long polls made a socket write per command, the API's largest cost while they came.
 * - `worker`: BullMQ workers and blocking reads need `maxRetriesPerRequest: null` and wait for
 *   Redis to come back.
 */
export function createRedis(
  target: RedisTarget,
  role: 'api' | 'worker',
  extra: RedisOptions = {},
): RedisClient {
  const common: RedisOptions = {
    connectionName: `reversi-arena-${role}`,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2000),
    lazyConnect: true,
  };
  const roleOptions: RedisOptions =
    role === 'api'
      ? {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          commandTimeout: 2000,
          enableAutoPipelining: true,
        }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
  if (typeof target === 'string') return new Redis(target, { ...common, ...roleOptions, ...extra });
  if ('cluster' in target) return clusterClient(target, { ...common, ...roleOptions, ...extra });
  return new Redis({
    ...common,
    ...roleOptions,
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.name,
    ...(target.sentinelPassword === undefined ? {} : { sentinelPassword: target.sentinelPassword }),
    ...(target.password === undefined ? {} : { password: target.password }),
    // A failover: the old primary, if it answers at all, answers writes with READONLY; reconnect,
    // which asks the sentinels for the new one, and send the command again.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
    // Hear of a promotion from the sentinels at once, rather than at the next failed command.
    failoverDetector: true,
    ...extra,
  });
}

/**
 * ioredis' failover detector (`failoverDetector: true`, above) keeps a subscriber on each sentinel,
 * made with no 'error' listener: while a sentinel was down, every connection printed "[ioredis]
 * Unhandled error event" to stderr, outside the log, each time it connected again (and once a
 * minute after). Those errors change nothing: the connection still hears of a failover through the
 * other sentinels, and asks them for the primary. So they are dropped, as ioredis drops the errors
 * of its own lookups through the sentinels (`SentinelConnector#resolve`).
 */
function quietFailoverDetectors(): void {
  const prototype = SentinelConnector.prototype as unknown as {
    connectToSentinel?: (this: unknown, ...args: unknown[]) => Redis;
    [quieted]?: true;
  };
  const connect = prototype.connectToSentinel;
  if (typeof connect !== 'function' || prototype[quieted]) return;
  prototype[quieted] = true;
  prototype.connectToSentinel = function (this: unknown, ...args: unknown[]): Redis {
    const sentinel = connect.apply(this, args);
    if (sentinel.listenerCount('error') === 0) sentinel.on('error', ignoreError);
    return sentinel;
  };
}
const quieted = Symbol.for('reversi-arena.quiet-failover-detectors');
function ignoreError(): void {}
quietFailoverDetectors();

/**
 * A cluster client: each node's connection takes the role's options, and the client itself the
 * parts that are the cluster's (its offline queue, its auto-pipelining, its lazy start). Writes and
 * reads go to primaries only: a replica's answer could be older than a write just made. While a
 * primary fails over, a command is retried on the promoted replica once the slots are known again.
 */
function clusterClient(target: ClusterTarget, nodeOptions: RedisOptions): Cluster {
  const {
    enableOfflineQueue,
    enableAutoPipelining,
    lazyConnect,
    retryStrategy: _,
    ...redisOptions
  } = nodeOptions;
  const options: ClusterOptions = {
    scaleReads: 'master',
    lazyConnect: lazyConnect ?? true,
    enableOfflineQueue: enableOfflineQueue ?? true,
    enableAutoPipelining: enableAutoPipelining ?? false,
    // When no node answers; a node's own connection is not retried (ioredis' cluster default):
    // the client refreshes the slots instead and finds the replica promoted in a dead primary's place.
    clusterRetryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2000),
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    redisOptions: {
      ...redisOptions,
      ...(target.password === undefined ? {} : { password: target.password }),
    },
  };
  return new Cluster(
    target.cluster.map(({ host, port }) => ({ host, port })),
    options,
  );
}

/**
 * A new connection like `client` (to the same server, or the same cluster), with `options` changed:
 * subscribers and readers of a component's own. On a cluster the offline queue and the ready check
 * are the cluster client's; the rest is each node connection's.
 */
export function duplicateClient(
  client: RedisClient,
  options: RedisOptions,
  clusterOptions: Pick<ClusterOptions, 'shardedSubscribers'> = {},
): RedisClient {
  if (client instanceof Redis) return client.duplicate(options);
  const { enableOfflineQueue, enableReadyCheck, ...nodeOptions } = options;
  return client.duplicate(undefined, {
    ...clusterOptions,
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(enableReadyCheck === undefined ? {} : { enableReadyCheck }),
    redisOptions: { ...client.options.redisOptions, ...nodeOptions },
  });
}

/**
 * A subscriber connection like `client`, for sharded pub/sub (`SSUBSCRIBE`): on a cluster, one
 * connection to the primary of each slot subscribed to, which hears an `SPUBLISH` there without the
 * cluster bus (plain `PUBLISH` crossed it to every node, adding 20-40 ms to each wake-up).
 */
export function subscriberLike(client: RedisClient, options: RedisOptions): RedisClient {
  return duplicateClient(client, options, { shardedSubscribers: true });
}

/** The servers behind a connection: itself on one server, each primary a cluster client knows. */
export function primariesOf(client: RedisClient): Redis[] {
  return client instanceof Redis ? [client] : client.nodes('master');
}

/**
 * The connection to the server that holds `key`: `client` itself on one server, the primary serving
 * the key's slot on a cluster. For commands about a connection rather than a key (WAIT asks the
 * replicas of the server it is sent to), which a cluster client would send to any node.
 */
export function serverOf(client: RedisClient, key: string): Redis {
  if (client instanceof Redis) return client;
  const primary = client.slots[keySlot(key)]?.[0];
  const node = primariesOf(client).find((n) => `${n.options.host}:${n.options.port}` === primary);
  if (node === undefined)
    throw new Error(`no primary known for the slot of ${key} (the cluster's slots are not loaded)`);
  return node;
}

const addresses = (nodes: readonly { host: string; port: number }[]) =>
  nodes.map(({ host, port }) => `${host}:${port}`).join(',');

/** The target in a log line or an error: the URL without its password, the sentinels and the name, or the nodes. */
export function describeTarget(target: RedisTarget): string {
  if (typeof target !== 'string' && 'cluster' in target) {
    return `the cluster of ${addresses(target.cluster)}`;
  }
  if (typeof target !== 'string') {
    return `primary "${target.name}" of the sentinels ${addresses(target.sentinels)}`;
  }
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return target;
  }
}

/**
 * Logs Redis outages through pino, once each, for every connection it watches: the first error of
 * an outage says the connection was lost, the first connection ready again says it is back. A
 * connection with no `error` listener would make ioredis print `[ioredis] Unhandled error event`
 * lines (not JSON) on every retry; every connection the arena opens is watched, duplicates too.
 */
export class RedisOutageLog {
  private down = false;

  constructor(private readonly logger: { warn(obj: object, msg: string): void; info(msg: string): void }) {}

  watch<R extends RedisClient>(redis: R): R {
    redis.on('error', (error: Error) => this.lost(error));
    this.endsWhenReady(redis);
    return redis;
  }

  /**
   * Ends an outage when `source` is ready again: for connections another component owns, whose
   * errors it hands to `report`. An outage only such a connection saw (a reset, a proxy's idle cut)
   * would otherwise never end, and the log would stay down, silent through every outage after.
   */
  endsWhenReady(source: { on(event: 'ready', listener: () => void): unknown }): void {
    source.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.logger.info('redis connection restored');
    });
  }

  /**
   * Takes an error another component reports (BullMQ's workers re-emit their connections' errors):
   * a lost connection is logged once per outage here, and answers true; any other error answers
   * false, for the caller to log.
   */
  report(error: Error): boolean {
    if (!isConnectionError(error)) return false;
    this.lost(error);
    return true;
  }

  private lost(error: Error): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn({ err: error.message }, 'redis connection lost; retrying');
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * What ioredis rejects a command with while the connection is down: a command sent on a connection
 * without an offline queue, or one whose retries ran out across reconnects. A connection that comes
 * back emits `ready`, which ends the outage these open.
 */
const DISCONNECTED_MESSAGES = new Set([
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  "Cluster isn't ready and enableOfflineQueue options is false",
  'Failed to refresh slots cache.',
  'None of startup nodes is available',
]);

export function isConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) ||
    DISCONNECTED_MESSAGES.has(error.message) ||
    error.name === 'MaxRetriesPerRequestError'
  );
}

/**
 * Listens to a BullMQ worker: its errors go to a `redisErrorListener`, and its backend, which owns
 * the blocking connection the worker opens for itself (no connection the log watches), ends the
 * outage such an error began when it is ready again.
 */
export function listenToBullWorker(
  worker: {
    on(event: 'error', listener: (error: Error) => void): unknown;
    readonly backend: { on(event: 'ready', listener: () => void): unknown };
  },
  outages: RedisOutageLog | undefined,
  logger: { error(obj: object, msg: string): void },
  what: string,
): void {
  worker.on('error', redisErrorListener(outages, logger, what));
  outages?.endsWhenReady(worker.backend);
}

/**
 * An `error` listener for a BullMQ queue or worker: a lost connection goes to the outage log (once
 * per outage), anything else is logged as `what`. Without a listener BullMQ prints raw errors.
 */
export function redisErrorListener(
  outages: RedisOutageLog | undefined,
  logger: { error(obj: object, msg: string): void },
  what: string,
): (error: Error) => void {
  return (error) => {
    if (!outages?.report(error)) logger.error({ err: error }, what);
  };
}

/** Redis is older than the arena needs: it says which feature it lacks. */
export class RedisTooOldError extends StartupError {}

/**
 * Throws a `RedisTooOldError` unless Redis' scripts can check ACL permissions
 * (`redis.acl_check_cmd`, Redis 7.0): without it every move and every match's end would fail.
 * Asks the script engine itself, not INFO, which an ACL user may be refused.
 */
async function requireRedis7(redis: RedisClient): Promise<void> {
  if ((await redis.eval('return redis.acl_check_cmd ~= nil and 1 or 0', 0)) === 1) return;
  throw new RedisTooOldError(
    'The arena needs Redis 7 or newer: its scripts check ACL permissions (redis.acl_check_cmd), which this Redis lacks.',
  );
}

/** Waits for a connection made with `lazyConnect` to be ready, without failing while Redis is still starting. */
export async function connected<R extends RedisClient>(redis: R): Promise<R> {
  await redis.connect();
  return redis;
}

/** `connected`, then refuses a Redis older than 7 (`RedisTooOldError`), closing the connection. */
export async function connectedToRedis7<R extends RedisClient>(redis: R): Promise<R> {
  await connected(redis);
  try {
    await requireRedis7(redis);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return redis;
}
