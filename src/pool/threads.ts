import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { startThread, threadEntry } from '../threads.ts';

/** What the process' thread tells a pool thread. */
export type PoolCommand =
  | { readonly type: 'close' }
  /** Asks for the thread's event-loop delay since the last ask (or its start). */
  | { readonly type: 'loop-delay' };

/** The event-loop delay a pool thread saw, in milliseconds. */
export interface LoopDelay {
  readonly threadId: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** What a pool thread tells the process' thread. */
export type PoolReport =
  | { readonly type: 'started' }
  | { readonly type: 'closed' }
  | ({ readonly type: 'loop-delay' } & LoopDelay);

/** What a pool thread is started with. */
export interface PoolThreadData {
  readonly config: Config;
  /** Only the first thread runs matchmaking: one scheduler per process, as without threads. */
  readonly matchmaking: boolean;
}

const ENTRY = threadEntry('./thread', import.meta.url);

/** A thread that died unasked is started again after this long (its matches resume at once). */
const RESTART_DELAY_MS = 1000;

/** The match workers of a process on threads of their own (see `startWorkers`). */
export interface PoolThreads {
  close(): Promise<void>;
  /** Each thread's event-loop delay since the last call (or its start). */
  loopDelays(): Promise<LoopDelay[]>;
  /** The threads now running, for tests that end one to see it replaced. */
  readonly threads: readonly Worker[];
}

/**
 * Starts `config.workers.threads` pool threads (never more than `WORKER_CONCURRENCY`), each playing
 * its share of the process' concurrency with connections of its own: a thread's event loop then
 * carries only its share of the bot calls, and the process uses as many cores as it has threads.
 * Resolves once every thread has started; rejects (ending the others) if one fails to. A thread
 * that dies later is logged and started again: its matches' locks were its own, so the new thread
 * (or any worker) resumes them from their recorded moves, as after a kill.
 *
 * @example
 * const workers = await startPoolThreads(config, logger);
 * await workers.close(); // on SIGTERM
 */
export async function startPoolThreads(config: Config, logger: Logger): Promise<PoolThreads> {
  const { concurrency } = config.workers;
  const count = Math.min(config.workers.threads, concurrency);
  const threads: Worker[] = [];
  let closing = false;

  const start = (index: number): Promise<void> => {
    const share = Math.floor(concurrency / count) + (index < concurrency % count ? 1 : 0);
    const data: PoolThreadData = {
      config: { ...config, workers: { ...config.workers, concurrency: share } },
      matchmaking: index === 0,
    };
    const thread = startThread(ENTRY, {
      workerData: data,
      name: `match-pool-${index}`,
      // A busy thread makes garbage fast, and each answer's objects live through the bot's think
      // time: a larger young generation collects less often for the same survivors (bench:concurrency
      // at 1000 matches: 178 µs of CPU a move instead of 208-221, and a shorter p99 loop delay).
      resourceLimits: { maxYoungGenerationSizeMb: config.workers.threadYoungGenerationMb },
    });
    threads[index] = thread;
    return new Promise((resolve, reject) => {
      let started = false;
      thread.on('message', (report: PoolReport) => {
        if (report.type !== 'started') return;
        started = true;
        resolve();
      });
      thread.once('error', (error) => {
        if (!started) reject(error);
        else logger.error({ err: error, thread: index }, 'a match pool thread failed');
      });
      thread.once('exit', (code) => {
        if (!started) reject(new Error(`match pool thread ${index} exited (code ${code}) while starting`));
        else if (!closing) {
          logger.error({ thread: index, code }, 'a match pool thread ended; starting it again');
          setTimeout(() => {
            if (closing) return;
            start(index).catch((error: unknown) =>
              logger.error({ err: error, thread: index }, 'a match pool thread failed to start again'),
            );
          }, RESTART_DELAY_MS).unref();
        }
      });
    });
  };

  try {
    await Promise.all(Array.from({ length: count }, (_, index) => start(index)));
  } catch (error) {
    closing = true;
    await Promise.all(threads.map((thread) => thread.terminate()));
    throw error;
  }
  logger.info({ threads: count, concurrency }, 'match pool threads started');

  return {
    threads,
    async close() {
      closing = true;
      await Promise.all(threads.map((thread) => closeThread(thread)));
    },
    loopDelays() {
      return Promise.all(threads.map((thread) => ask(thread, { type: 'loop-delay' }, 'loop-delay')));
    },
  };
}

/** Sends `command` and waits for the thread's report of `type` (or its exit). */
function ask<T extends PoolReport['type']>(
  thread: Worker,
  command: PoolCommand,
  type: T,
): Promise<Extract<PoolReport, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (report: PoolReport) => {
      if (report.type !== type) return;
      thread.off('exit', onExit);
      thread.off('message', onMessage);
      resolve(report as Extract<PoolReport, { type: T }>);
    };
    const onExit = (code: number) => {
      thread.off('message', onMessage);
      reject(new Error(`the match pool thread exited (code ${code})`));
    };
    thread.on('message', onMessage);
    thread.once('exit', onExit);
    thread.postMessage(command);
  });
}

/** Lets the thread close its pool (its matches finish or are handed back), then ends it. */
async function closeThread(thread: Worker): Promise<void> {
  if (thread.threadId === -1) return; // already ended
  await ask(thread, { type: 'close' }, 'closed').catch(() => {});
  await thread.terminate();
}
