/**
 * `npm start`: the whole arena in one process: the API and (unless WORKERS_IN_PROCESS=false) the
 * match workers, against REDIS_URL, starting a local redis-server when none answers.
 */
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadConfig } from './config.ts';
import { metricsApp } from './http/routes/ops.ts';
import { createHttpServer, openFileLimit } from './http/server.ts';
import { drainOnClose } from './http/shutdown.ts';
import { createLogger } from './logger.ts';
import { startApi, startWorkers, stopRequested } from './service.ts';
import { StartupError } from './startup-error.ts';
import { ensureRedis } from './store/local-redis.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  const stopped = stopRequested(config, logger);
  if (config.redis.autostart) {
    const started = await ensureRedis(config.redis.url, config.redis.dataDir);
    if (started) logger.info(`no Redis answered at ${config.redis.url}: ${started}`);
  }
  if (config.adminToken === undefined) logger.warn('ADMIN_TOKEN is not set: admin operations are disabled');

  let shuttingDown = false;
  const api = await startApi(config, logger, () => shuttingDown);
  const workers = config.workers.inProcess ? await startWorkers(config, logger) : undefined;
  const server = createHttpServer(api.app, config.http, logger);
  const http = drainOnClose(server, api.app);
  server.listen(config.port, config.host, () => {
    const { port } = server.address() as AddressInfo;
    // A wildcard address is not one to open: name this machine instead.
    const host = ['0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host;
    logger.info(`reversi arena: open http://${host}:${port}/ (API docs at /docs, bot protocol at /protocol)`);
  });
  logConnectionCapacity(logger);
  const metrics =
    config.metricsPort === undefined
      ? undefined
      : metricsApp({ registry: api.registry, moreMetrics: () => api.queue.prometheusMetrics() }).listen(
          config.metricsPort,
          config.host,
          () => logger.info(`metrics at :${config.metricsPort}/metrics`),
        );

  // Shutdown order: refuse new requests (readiness fails first); then, side by side, stop workers
  // taking matches (running ones finish or are handed back) and drain HTTP (event streams are told
  // the arena is closing, long polls answered), each within the grace period; close Redis last.
  const signal = await stopped;
  shuttingDown = true;
  logger.info({ signal }, 'shutting down');
  metrics?.close();
  await Promise.all([http.close(config.shutdownGraceMs), workers?.close()]);
  await api.close();
  logger.info('bye');
  process.exit(0);
}

/** Each connection holds a file: say how many this process may open, and warn when that is few. */
function logConnectionCapacity(logger: Logger): void {
  const limit = openFileLimit();
  if (limit === null) return;
  const message = `this process may hold about ${limit} open connections (open-file limit ${limit})`;
  if (limit < 4096)
    logger.warn(`${message}: raise it with ulimit -n (npm start raises it to the hard limit)`);
  else logger.info(message);
}

main().catch((error: unknown) => {
  if (error instanceof StartupError) {
    console.error(error.message);
  } else {
    console.error('reversi arena failed to start:', error);
  }
  process.exit(1);
});
