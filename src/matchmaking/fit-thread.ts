import type { RedisTarget } from '../config.ts';
import type { BradleyTerryOptions } from '../rating/bradley-terry.ts';
import { startThread, threadEntry } from '../support/thread-entry.ts';

/** The fit's knobs a caller may set; the anchor and the starting point come from the store. */
export type FitOptions = Pick<BradleyTerryOptions, 'priorDraws' | 'tolerance' | 'maxIterations'>;

/** What the fit thread is sent: where the store is (a thread cannot share this one's sockets). */
export interface FitRequest {
  readonly redis: { readonly target: RedisTarget; readonly prefix: string };
  /** Saved as the strengths' `computedAt`: the moment the results they rest on were asked for. */
  readonly computedAt: number;
  readonly options?: FitOptions;
}

/** What a recomputation did. */
export interface FitSummary {
  /** Bots rated (and strengths saved). */
  readonly rated: number;
  readonly iterations: number;
  readonly converged: boolean;
  /** Bots whose saved strength the fit started from (0 on the first fit). */
  readonly started: number;
}

export type FitReply =
  | { readonly ok: true; readonly summary: FitSummary; readonly threadId: number }
  | { readonly ok: false; readonly name: string; readonly message: string };

const ENTRY = threadEntry('./fit-worker', import.meta.url);

/**
 * Recomputes the Bradley–Terry strengths in a worker thread of its own, from reading to writing:
 * the thread connects to Redis, reads the rated tallies (HSCAN batches), the bots' Elo ratings
 * (the anchor is their mean) and the last saved strengths (where the fit starts), fits, and
 * replaces the saved strengths. This thread only waits for one small message, so bot turns, timers
 * and Redis replies go on here while it runs. Aborting `signal` ends the thread and rejects (a
 * write the thread already sent is one MULTI: whole or not at all). Resolves with what the fit did
 * and the id of the thread that did it; rejects with the thread's error (a RangeError from the fit
 * stays one).
 *
 * @example
 * const { rated } = await recomputeInThread({
 *   redis: { target: 'redis://127.0.0.1:6379', prefix: 'arena' },
 *   computedAt: Date.now(),
 * });
 */
export function recomputeInThread(
  request: FitRequest,
  signal?: AbortSignal,
): Promise<FitSummary & { threadId: number }> {
  signal?.throwIfAborted();
  const worker = startThread(ENTRY);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal?.reason);
      void worker.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    worker.once('message', (reply: FitReply) => {
      settle();
      if (reply.ok) resolve({ ...reply.summary, threadId: reply.threadId });
      else reject(reply.name === 'RangeError' ? new RangeError(reply.message) : new Error(reply.message));
      void worker.terminate();
    });
    worker.once('error', (error) => {
      settle();
      reject(error);
    });
    worker.once('exit', (code) => {
      settle();
      reject(new Error(`the fit thread exited (code ${code}) before it answered`));
    });
    worker.postMessage(request);
  });
}
