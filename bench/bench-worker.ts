import { systemClock } from '../src/clock.ts';
import { MatchWorker, type MatchWorkerOptions } from '../src/match/worker.ts';

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
