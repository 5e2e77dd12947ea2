import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { StartupError } from '../support/startup-error.ts';
import { startThread, threadEntry } from '../support/thread-entry.ts';

/** What the process' thread tells a pool thread. */
export type PoolCommand =
  | { readonly type: 'close' }
  /** Asks for the thread's event-loop delay since the last ask (or its start). */
  | { readonly type: 'loop-delay' };

/**
 * How often a pool thread samples its event loop (`monitorEventLoopDelay`'s resolution). Each
 * sample is the whole time between two of these timers, as prom-client's lag metrics read it: an
 * idle loop reads about this much, and the lag past its schedule is a reading less this.
 */
export const LOOP_SAMPLE_MS = 10;

/** The event-loop delay a pool thread saw, in milliseconds, since the last ask (see LOOP_SAMPLE_MS). */
export interface LoopDelay {
  readonly threadId: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /**
   * The share of the window the thread spent runnable but waiting for a CPU (see ./cpu-wait.ts):
   * the machine's part of the delay. Null where the system does not tell.
   */
  readonly cpuWaitShare: number | null;
}

/** What a pool thread tells the process' thread. */
export type PoolReport =
  | { readonly type: 'started' }
  /** A `StartupError` stopped the thread from starting: it exits after saying so. */
  | { readonly type: 'start-failed'; readonly message: string }
  | { readonly type: 'closed' }
  | ({ readonly type: 'loop-delay' } & LoopDelay);

/** What a pool thread is started with. */
export interface PoolThreadData {
  readonly config: Config;
  /** Only the first thread runs matchmaking: one scheduler per process, as without threads. */
  readonly matchmaking: boolean;
  /** The process logs readable lines (its stdout is a terminal; a thread's never says so). */
  readonly pretty: boolean;
}

const ENTRY = threadEntry('./pool-thread', import.meta.url);

/**
 * A thread that died unasked is started again after this long, doubling for each death in a row up
 * to the most; its matches resume once their locks expire (`WORKER_LOCK_MS`), as after a kill.
 */
const RESTART_DELAY_MS = 1000;
const RESTART_DELAY_MAX_MS = 30_000;
/** A thread that ran this long before it died counts as healthy: its next restart waits 1 s again. */
const HEALTHY_AFTER_MS = 60_000;
/** How long a thread has to report its loop delay. */
const LOOP_DELAY_ANSWER_MS = 5000;

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
 * that dies later is logged and started again, with a growing delay while it keeps dying: its
 * matches' locks were its own, so once they expire the new thread (or any worker) resumes them
 * from their recorded moves, as after a kill.
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

  // Restarts wait longer after each death in a row (1 s, 2 s … 30 s); a thread that ran a minute
  // counts as healthy again. The timers are kept (not unref'd): in `npm run worker` the threads are
  // all that keeps the process alive, and it must not exit quietly between a death and a restart.
  const restarts = new Map<number, NodeJS.Timeout>();
  const deathsInARow = new Map<number, number>();
  const restartLater = (index: number) => {
    const deaths = (deathsInARow.get(index) ?? 0) + 1;
    deathsInARow.set(index, deaths);
    const delayMs = Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MS * 2 ** (deaths - 1));
    const timer = setTimeout(() => {
      restarts.delete(index);
      if (closing) return;
      start(index).catch((error: unknown) => {
        logger.error({ err: error, thread: index, delayMs }, 'a match pool thread failed to start again');
        if (!closing) restartLater(index);
      });
    }, delayMs);
    restarts.set(index, timer);
  };

  const start = (index: number): Promise<void> => {
    const share = Math.floor(concurrency / count) + (index < concurrency % count ? 1 : 0);
    const data: PoolThreadData = {
      config: { ...config, workers: { ...config.workers, concurrency: share } },
      matchmaking: index === 0,
      pretty: process.stdout.isTTY === true,
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
      let startedAt: number | undefined;
      thread.on('message', (report: PoolReport) => {
        if (report.type === 'start-failed') reject(new StartupError(report.message));
        if (report.type !== 'started') return;
        startedAt = performance.now();
        resolve();
      });
      thread.once('error', (error) => {
        if (startedAt === undefined) reject(error);
        else logger.error({ err: error, thread: index }, 'a match pool thread failed');
      });
      thread.once('exit', (code) => {
        if (startedAt === undefined) {
          reject(new Error(`match pool thread ${index} exited (code ${code}) while starting`));
          return;
        }
        if (closing) return;
        if (performance.now() - startedAt >= HEALTHY_AFTER_MS) deathsInARow.delete(index);
        logger.error({ thread: index, code }, 'a match pool thread ended; starting it again');
        restartLater(index);
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
      for (const timer of restarts.values()) clearTimeout(timer);
      restarts.clear();
      await Promise.all(threads.map((thread) => closeThread(thread)));
    },
    loopDelays() {
      return Promise.all(
        threads.map((thread) => ask(thread, { type: 'loop-delay' }, 'loop-delay', LOOP_DELAY_ANSWER_MS)),
      );
    },
  };
}

/**
 * Sends `command` and waits for the thread's report of `type`. Rejects at once for a thread that
 * has ended, when it ends first, or after `timeoutMs` when one is given.
 */
function ask<T extends PoolReport['type']>(
  thread: Worker,
  command: PoolCommand,
  type: T,
  timeoutMs?: number,
): Promise<Extract<PoolReport, { type: T }>> {
  if (thread.threadId === -1) return Promise.reject(new Error('the match pool thread has ended'));
  return new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      thread.off('exit', onExit);
      thread.off('message', onMessage);
    };
    const onMessage = (report: PoolReport) => {
      if (report.type !== type) return;
      settle();
      resolve(report as Extract<PoolReport, { type: T }>);
    };
    const onExit = (code: number) => {
      settle();
      reject(new Error(`the match pool thread exited (code ${code})`));
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            settle();
            reject(new Error(`the match pool thread did not answer ${command.type} within ${timeoutMs} ms`));
          }, timeoutMs);
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
