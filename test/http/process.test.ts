import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { deleteKeysUnder } from '../../src/redis/maintenance.ts';
import { type ApiProcess, printedBy, startApiProcess } from '../support/api-process.ts';
import { killedAfterTest } from '../support/children.ts';
import { compiledProgram } from '../support/compiled-programs.ts';
import { REDIS_URL } from '../support/harness.ts';
import { freePort, PrivateRedis } from '../support/private-redis.ts';
import { exited } from '../support/worker-process.ts';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** The prefix of the process that runs on the shared Redis: its keys go when the file ends. */
const shared = `test-${randomUUID()}`;
let api: ApiProcess | undefined;
let redis: PrivateRedis | undefined;
afterEach(async () => {
  api?.child.kill('SIGKILL');
  if (api) await exited(api.child);
  await redis?.stop().catch(() => {});
  api = undefined;
  redis = undefined;
});
afterAll(async () => {
  const connection = new Redis(REDIS_URL);
  await deleteKeysUnder(connection, shared);
  await connection.quit();
});

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Kills `child`'s whole process group (it was spawned `detached`) when the test ends. */
function whole<T extends ChildProcess>(child: T): T {
  onTestFinished(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
  return child;
}

/** Everything a child prints, stdout and stderr apart. */
function captured(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  /** The first match of `pattern` in stdout, once printed (see `printedBy`). */
  const printed = (pattern: RegExp, timeoutMs?: number) =>
    printedBy(child, [child.stdout!], () => stdout, pattern, timeoutMs);
  return { stdout: () => stdout, stderr: () => stderr, printed };
}

/** `npm start`'s environment on `port`: the shared prefix, no house bots, one pool thread. */
const startEnv = (port: number) => ({
  PATH: process.env.PATH,
  HOST: '127.0.0.1',
  PORT: String(port),
  REDIS_URL,
  REDIS_PREFIX: shared,
  REDIS_AUTOSTART: 'false',
  HOUSE_BOTS: 'false',
  WORKER_THREADS: '1',
});

describe('npm start', { timeout: 60_000 }, () => {
  it('names a port already in use in one line, without a stack, and exits with 1 before any pool thread starts', async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const { port } = taken.address() as AddressInfo;
    try {
      const child = killedAfterTest(
        spawn(process.execPath, compiledProgram('src/main.ts'), {
          cwd: ROOT,
          env: startEnv(port),
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      const out = captured(child);
      expect(await exited(child)).toBe(1);
      expect(out.stderr().trim().split('\n')).toEqual([
        `reversi arena: port ${port} on 127.0.0.1 is already in use; set PORT to another port`,
      ]);
      expect(out.stdout()).not.toMatch(/match workers started|pool threads started/);
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });

  it('passes SIGTERM on to the server, which shuts down as when signalled itself', async () => {
    const child = whole(
      spawn('npm', ['start', '--silent'], {
        cwd: ROOT,
        // npm runs the script in a shell of its own; the signal must reach the server behind it.
        detached: true,
        env: { ...startEnv(0), HOME: process.env.HOME },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const out = captured(child);
    const base = (await out.printed(/open (http:\/\/[^/\s]+)\//, 30_000))[1]!;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(out.stdout()).toMatch(/"signal":"SIGTERM".*shutting down[\s\S]*bye/);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('serves /metrics on METRICS_PORT without a token, and not on its own port', async () => {
    const metricsPort = await freePort();
    api = await startApiProcess({
      REDIS_URL,
      REDIS_PREFIX: shared,
      ADMIN_TOKEN,
      WORKERS_IN_PROCESS: 'false',
      HOUSE_BOTS: 'false',
      METRICS_PORT: String(metricsPort),
    });
    await api.printed(/metrics at/);
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('process_cpu_user_seconds_total');
    const here = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(here.status).toBe(404);
  });

  it('logs a Redis outage once, as JSON, and its end, with workers running', async () => {
    redis = await PrivateRedis.start();
    api = await startApiProcess({
      REDIS_URL: redis.url,
      REDIS_PREFIX: `test-${randomUUID()}`,
      ADMIN_TOKEN,
      HOUSE_BOTS: 'false',
      MATCHMAKING_INTERVAL_MS: '200',
      LOG_LEVEL: 'info',
      WORKER_THREADS: '2',
    });
    // Every connection up before the outage: one that became ready just after another's first
    // error ended that outage in the log, and the next error began a second one.
    await api.printed(/match pool threads started/);
    await redis.stop();
    // Long enough for every connection to fail and retry a few times (retries back off to 2 s).
    await new Promise((done) => setTimeout(done, 4000));
    await redis.start();
    await api.printed(/redis connection restored/);

    const lines = api.output().trim().split('\n');
    const notJson = lines.filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(api.output()).not.toContain('Unhandled error event');
    const lost = lines.filter((line) => line.includes('redis connection lost'));
    // At most one per outage from each part of the process that logs on its own: the API, and
    // each of the two match pool threads (their lines name the thread).
    expect(lost.length).toBeGreaterThanOrEqual(1);
    const parts = lost.map((line) => (JSON.parse(line) as { thread?: number }).thread ?? 'api');
    expect(new Set(parts).size, lost.join('\n')).toBe(lost.length);
    expect(lost.length).toBeLessThanOrEqual(3);
    expect(
      lines.filter((line) => /ECONNREFUSED/.test(line) && !line.includes('redis connection lost')),
    ).toEqual([]);
  });
});
