import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { startMatchPool } from '../pool/match-pool.ts';
import { startPoolThreads } from '../pool/pool-threads.ts';
import { exitOnceLogged } from '../support/logger.ts';

/**
 * Ends the process with 1 when a shutdown is still stuck after the grace period and
 * `SHUTDOWN_STALL_MS` (Redis is unreachable, so matches can neither be recorded nor handed back).
 * Nothing is lost: another worker resumes those matches from their recorded moves, as after a kill.
 */
export function exitIfShutdownStalls(config: Config, logger: Logger): void {
  const afterMs = config.shutdownGraceMs + config.shutdownStallMs;
  setTimeout(() => {
    logger.error({ afterMs }, 'shutdown is stuck; exiting without finishing it');
    exitOnceLogged(logger, 1);
  }, afterMs).unref();
}

/**
 * The first SIGTERM or SIGINT, listened for from the moment this is called: a signal that comes
 * while the process is still starting (its pool threads still loading) is waited on rather than
 * killing the process with its matches. Arms `exitIfShutdownStalls` when it comes.
 *
 * @example
 * const stopped = stopRequested(config, logger); // first thing
 * const workers = await startWorkers(config, logger);
 * logger.info({ signal: await stopped }, 'shutting down');
 */
export function stopRequested(config: Config, logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      exitIfShutdownStalls(config, logger);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** A process' match workers, on its own thread or on threads of their own. */
export interface MatchWorkers {
  /** Stops taking matches, lets running ones finish for the grace period (or hands them back). */
  close(): Promise<void>;
}

/**
 * Builds the match workers of one process: `npm run worker` runs them alone, `npm start` beside
 * the API. With `WORKER_THREADS` above 0 they play on that many threads (src/pool/pool-threads.ts), each a
 * pool of its own (`startMatchPool`) with a share of `WORKER_CONCURRENCY`; the first one also runs
 * matchmaking.
 */
export function startWorkers(config: Config, logger: Logger): Promise<MatchWorkers> {
  if (config.workers.threads === 0) return startMatchPool(config, logger);
  return startPoolThreads(config, logger);
}
