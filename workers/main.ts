/**
 * `npm run worker`: a standalone pool of match workers. Run as many processes, on as many machines,
 * as you like against the same Redis: they share one queue.
 */
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startWorkers, stopRequested } from '../src/service.ts';
import { RedisTooOldError } from '../src/store/redis-connection.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  const stopped = stopRequested(config, logger);
  const workers = await startWorkers(config, logger);
  logger.info({ signal: await stopped }, 'worker shutting down');
  await workers.close();
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof RedisTooOldError ? error.message : error);
  process.exit(1);
});
