/**
 * `npm start`: the whole arena in one process: the API and (unless WORKERS_IN_PROCESS=false) the
 * match workers, against REDIS_URL, starting a local redis-server when none answers.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { exitIfShutdownStalls, startApi, startWorkers } from './service.ts';
import { ensureRedis, NoRedisError } from './store/local-redis.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  if (config.redis.autostart) {
    const started = await ensureRedis(config.redis.url, config.redis.dataDir);
    if (started) logger.info(`no Redis answered at ${config.redis.url}: ${started}`);
  }
  if (config.adminToken === undefined) logger.warn('ADMIN_TOKEN is not set: admin operations are disabled');

  let shuttingDown = false;
  const api = await startApi(config, logger, () => shuttingDown);
  const workers = config.workers.inProcess ? await startWorkers(config, logger) : undefined;
  const server: Server = api.app.listen(config.port, config.host, () => {
    const { port } = server.address() as AddressInfo;
    // A wildcard address is not one to open: name this machine instead.
    const host = ['0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host;
    logger.info(`reversi arena: open http://${host}:${port}/ (API docs at /docs, bot protocol at /protocol)`);
  });

  // Shutdown order: refuse new requests (readiness fails first), stop workers taking matches and
  // let running ones finish or hand them back, drain HTTP, close Redis last.
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    exitIfShutdownStalls(config, logger);
    const closingServer = new Promise<void>((done) => server.close(() => done()));
    server.closeIdleConnections();
    await workers?.close();
    await closingServer;
    await api.close();
    logger.info('bye');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof NoRedisError) {
    console.error(error.message);
  } else {
    console.error('reversi arena failed to start:', error);
  }
  process.exit(1);
});
