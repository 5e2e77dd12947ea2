/**
 * `npm start`: the whole arena in one process: the API and (unless WORKERS_IN_PROCESS=false) the
 * match workers, against REDIS_URL, starting a local redis-server when none answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadConfig } from './config.ts';
import { ensureRedis } from './connections/local-redis.ts';
import { metricsApp } from './http/routes/ops.ts';
import { createHttpServer, openFileLimit } from './http/server.ts';
import { drainOnClose } from './http/shutdown.ts';
import { createLogger, exitOnceLogged } from './support/logger.ts';
import { StartupError } from './support/startup-error.ts';
import { startApi } from './wiring/api-process.ts';
import { startWorkers, stopRequested } from './wiring/processes.ts';

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
  // The ports first: one taken ends the start here, in a line, before any pool thread starts.
  const server = createHttpServer(api.app, config.http, logger);
  const metrics =
    config.metricsPort === undefined
      ? undefined
      : createServer(
          metricsApp({ registry: api.registry, moreMetrics: () => api.queue.prometheusMetrics() }),
        );
  await listenOn(server, config.port, config.host, 'PORT', config.http.listenBacklog);
  if (metrics) {
    await listenOn(metrics, config.metricsPort!, config.host, 'METRICS_PORT');
    logger.info(`metrics at :${config.metricsPort}/metrics`);
  }
  const http = drainOnClose(server, api.app);
  const workers = config.workers.inProcess ? await startWorkers(config, logger) : undefined;
  const { port } = server.address() as AddressInfo;
  // A wildcard address is not one to open: name this machine instead.
  const host = ['0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host;
  logger.info(`reversi arena: open http://${host}:${port}/ (API docs at /docs, bot protocol at /protocol)`);
  logConnectionCapacity(logger);

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
  exitOnceLogged(logger, 0);
}

/**
 * Listens on `port`, or fails with a StartupError that names the port and its variable when the
 * port is taken or not ours to take (the entry point prints it as one line and exits with 1).
 */
function listenOn(
  server: Server,
  port: number,
  host: string,
  variable: string,
  backlog?: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'is already in use'
          : error.code === 'EACCES'
            ? 'may not be opened by this user'
            : `cannot be opened (${error.code ?? error.message})`;
      reject(
        new StartupError(`reversi arena: port ${port} on ${host} ${why}; set ${variable} to another port`),
      );
    };
    server.once('error', failed);
    server.listen({ port, host, ...(backlog === undefined ? {} : { backlog }) }, () => {
      server.off('error', failed);
      resolve();
    });
  });
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
