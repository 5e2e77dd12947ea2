import { Worker } from 'node:worker_threads';
import type { BradleyTerryFit, BradleyTerryOptions, TallyColumns } from '../rating/bradley-terry.ts';

/** What the fit thread is sent: the tallies (their typed arrays are moved, not copied). */
export interface FitRequest {
  readonly columns: TallyColumns;
  readonly options: BradleyTerryOptions;
}

export type FitReply =
  | { readonly ok: true; readonly fit: BradleyTerryFit; readonly threadId: number }
  | { readonly ok: false; readonly message: string };

/**
 * The worker entry beside this file, in this file's own form: `.ts` when run from source (tsx,
 * vitest), `.js` once built.
 */
const ENTRY = new URL(`./fit-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/**
 * A new thread for the entry. From source it must load TypeScript itself: vitest compiles this
 * process' modules in a way a thread does not inherit, and on Node 20 a thread's `--import` of
 * tsx's loader does not reach its entry ("Unknown file extension"), so a two-line bootstrap
 * registers tsx in the thread and then imports the entry. Under `npm start` (tsx) the same works.
 * A built `.js` entry starts directly.
 */
function startThread(entry: URL): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)})
    .then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true });
}

/**
 * Fits Bradley–Terry strengths (`bradleyTerryFromColumns`) in a worker thread of its own, so a fit
 * over thousands of bots never holds this thread's event loop: bot turns, timers and Redis replies
 * go on while it runs. The tallies' typed arrays are transferred, so `columns` is unusable after
 * the call. Aborting `signal` ends the thread and rejects. Resolves with the fit and the id of
 * the thread that computed it; rejects with the fit's own error (a RangeError's message) if it threw.
 *
 * @example
 * const { fit } = await fitInThread(await store.ratedTallies(), { anchorMean: 1500 });
 */
export function fitInThread(
  columns: TallyColumns,
  options: BradleyTerryOptions,
  signal?: AbortSignal,
): Promise<{ fit: BradleyTerryFit; threadId: number }> {
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
      if (reply.ok) resolve({ fit: reply.fit, threadId: reply.threadId });
      else reject(new RangeError(reply.message));
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
    const request: FitRequest = { columns, options };
    // Moved, not copied; a shared buffer is shared anyway, and one buffer is listed once.
    const buffers = new Set(
      [columns.a, columns.b, columns.games, columns.scoreA]
        .map((column) => column.buffer)
        .filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer),
    );
    worker.postMessage(request, [...buffers]);
  });
}
