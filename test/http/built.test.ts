import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeysUnder } from '../../src/redis/maintenance.ts';
import { startApiProcess } from '../support/api-process.ts';
import { REDIS_URL } from '../support/harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const prefix = `test-${randomUUID()}`;
afterAll(async () => {
  const connection = new Redis(REDIS_URL);
  await deleteKeysUnder(connection, prefix);
  await connection.quit();
});

// The production image runs the build, not the sources: what the build leaves out or places one
// directory deeper (the contract, the web pages, a pool thread's entry) must still be found.
describe('npm run build, then npm run start:dist', { timeout: 120_000 }, () => {
  it('serves the contract and the web pages, and plays in a pool thread, from dist/', async () => {
    // The build as `npm run build` runs it, less the type check (`npm run typecheck` does that, in
    // CI before the tests): the same files out, in half the time and half the CPU.
    await promisify(execFile)('npm', ['run', 'build', '--', '--noCheck'], { cwd: ROOT });
    const api = await startApiProcess(
      {
        REDIS_URL,
        REDIS_PREFIX: prefix,
        HOUSE_BOTS: 'false',
        MATCHMAKING_ENABLED: 'false',
        LOG_LEVEL: 'info',
        WORKER_THREADS: '1',
      },
      ['dist/src/main.js'],
    );
    await api.printed(/match pool threads started/, 30_000);
    const spec = await fetch(`${api.url}/openapi.yaml`);
    expect(spec.status).toBe(200);
    expect(await spec.text()).toBe(readFileSync(new URL('openapi.yaml', `file://${ROOT}`), 'utf8'));
    const home = await fetch(`${api.url}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/text\/html/);
  });
});
