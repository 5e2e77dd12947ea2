/**
 * The API alone, as a child of a bench (see `forkApi` in arena-processes.ts): `npm start`'s wiring
 * with no workers. Sends `{ port }` once it listens; answers `cpu` with its CPU time and 5xx count.
 */

import { once } from 'node:events';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/support/logger.ts';
import { startApi } from '../src/wiring/api-process.ts';

const config = loadConfig(process.env);
const api = await startApi(config, createLogger(config), () => false);
let errors = 0;
const server = api.app.listen(0, '127.0.0.1');
await once(server, 'listening');
server.on('request', (_req, res) => {
  res.on('finish', () => {
    if (res.statusCode >= 500) errors++;
  });
});
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMs: (user + system) / 1000, errors });
  }
});
process.send?.({ port });
