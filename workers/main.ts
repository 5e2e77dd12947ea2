/**
 * `npm run worker`: a standalone pool of match workers. Run as many processes, on as many machines,
 * as you like against the same Redis: they share one queue.
 */
import { loadConfig } from '../src/config.ts';
import { createLogger, exitOnceLogged } from '../src/support/logger.ts';
import { StartupError } from '../src/support/startup-error.ts';
import { startWorkers, stopRequested } from '../src/wiring/processes.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  const stopped = stopRequested(config, logger);
  const workers = await startWorkers(config, logger);
  logger.info({ signal: await stopped }, 'worker shutting down');
  await workers.close();
  exitOnceLogged(logger, 0);
}

main().catch((error: unknown) => {
  console.error(error instanceof StartupError ? error.message : error);
  process.exit(1);
});
