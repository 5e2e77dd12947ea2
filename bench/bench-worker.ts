import { MatchService } from '../src/arena/matches.ts';
import type { Config } from '../src/config.ts';
import { MatchWorker, type MatchWorkerOptions } from '../src/pool/match-worker.ts';
import type { MatchQueue } from '../src/queue/match-queue.ts';
import type { Stores } from '../src/store/store.ts';
import { systemClock } from '../src/support/clock.ts';
import { secureRandomBytes } from '../src/support/random.ts';

/**
 * A match worker for a benchmark, ready to take jobs: the system clock, and no reconciliation
 * sweep during the run (every match of a bench is queued by the bench itself).
 */
export async function benchWorker(
  options: Omit<MatchWorkerOptions, 'clock' | 'reconcileEveryMs'>,
): Promise<MatchWorker> {
  const worker = new MatchWorker({ ...options, clock: systemClock, reconcileEveryMs: 3_600_000 });
  await worker.worker.waitUntilReady();
  return worker;
}

/** The match service a bench creates its matches with, as the API builds it. */
export function benchMatchService(stores: Stores, queue: MatchQueue, config: Config): MatchService {
  return new MatchService({
    stores,
    queue,
    clock: systemClock,
    random: secureRandomBytes,
    limits: config.limits,
  });
}
