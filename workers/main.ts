/**
 * `npm run worker`: a standalone pool of match workers. Run as many processes, on as many machines,
 * as you like against the same Redis: they share one queue.
 */
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { exitIfShutdownStalls, startWorkers } from '../src/service.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  const workers = await startWorkers(config, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down');
    exitIfShutdownStalls(config, logger);
    await workers.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
