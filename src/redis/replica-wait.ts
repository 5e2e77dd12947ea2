import { type RedisClient, serverOf } from '../connections/redis-connection.ts';

/** How many replicas a committed result waits for, and for how long at most. */
export interface ReplicaWaitPolicy {
  readonly replicas: number;
  readonly timeoutMs: number;
}

/** After a wait that timed out, results go on without waiting for this long before one tries again. */
const PAUSE_AFTER_SHORTFALL_MS = 10_000;

/**
 * Waits, after a match's result is committed, until `replicas` replicas hold it (Redis' WAIT on the
 * connection that wrote it), so that a failover that promotes a replica keeps every result anyone
 * was told. WAIT blocks the connection it is sent on, and with it every command queued behind: when
 * the replicas fall short (one is down), waiting stops for ten seconds, so a missing replica costs
 * one `timeoutMs` stall every ten seconds, not one per match. `onShortfall` hears each shortfall.
 * On a cluster the wait goes to the primary that holds `key` (every key of the arena shares its slot).
 */
export class ReplicaWait {
  #pausedUntil = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly policy: ReplicaWaitPolicy,
    private readonly onShortfall: (acknowledged: number) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  async afterCommit(): Promise<void> {
    if (this.policy.replicas <= 0 || this.now() < this.#pausedUntil) return;
    const acknowledged = await serverOf(this.redis, this.key).wait(
      this.policy.replicas,
      this.policy.timeoutMs,
    );
    if (acknowledged >= this.policy.replicas) return;
    this.#pausedUntil = this.now() + PAUSE_AFTER_SHORTFALL_MS;
    this.onShortfall(acknowledged);
  }
}

/** The ReplicaWait of a process' store connection, its shortfalls logged as warnings. */
export function replicaWaitOf(
  redis: RedisClient,
  prefix: string,
  policy: ReplicaWaitPolicy,
  logger: { warn(obj: object, msg: string): void },
): ReplicaWait {
  return new ReplicaWait(redis, prefix, policy, (acknowledged) =>
    logger.warn(
      { acknowledged, wanted: policy.replicas, timeoutMs: policy.timeoutMs },
      'a match result was not on enough replicas in time: results go on without waiting for 10 s',
    ),
  );
}
