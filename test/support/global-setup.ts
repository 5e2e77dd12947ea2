import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { redisAnswers } from '../../src/connections/local-redis.ts';
import { compilePrograms } from './compiled-programs.ts';

const INSTALL_HINT =
  'npm test needs Redis 7: apt-get install redis-server, or set REDIS_URL to a running server';

/** Hosts a throwaway server can be started for: this machine's loopback. */
const LOOPBACK = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/**
 * Vitest `globalSetup`: makes sure Redis answers at `REDIS_URL` (default `redis://127.0.0.1:6379`)
 * before any test file runs, since most of them talk to a real one. When none does and
 * `redis-server` is installed, starts a throwaway server on that port that keeps nothing on disk,
 * and returns the teardown that stops it. Otherwise fails the run with one line saying what to
 * install. Also compiles the programs the tests start as child processes (compiled-programs.ts).
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  await compilePrograms();
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) return undefined;
  const { hostname, port } = new URL(url);
  if (!LOOPBACK.includes(hostname)) fail(`no Redis answers at ${url}; ${INSTALL_HINT}`);
  if (spawnSync('redis-server', ['--version']).error) {
    fail(`no Redis answers at ${url} and redis-server is not installed; ${INSTALL_HINT}`);
  }
  const server = await startThrowaway(url, port || '6379');
  console.log(`vitest: started a throwaway redis-server (pid ${server.pid}) on port ${port || '6379'}`);
  return () => stop(server);
}

/**
 * Starts `redis-server` in the foreground as a child of this process, so the teardown can stop
 * exactly it; unlike `ensureRedis` (for `npm start`) it saves nothing: no RDB, no AOF.
 */
async function startThrowaway(url: string, port: string): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    // `-::1` binds IPv6 loopback when there is one, for REDIS_URLs that say `localhost`.
    ['--port', port, '--bind', '127.0.0.1', '-::1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  server.stdout?.on('data', collect);
  server.stderr?.on('data', collect);
  let exited = false;
  server.once('exit', () => {
    exited = true;
  });
  for (let attempt = 0; attempt < 100; attempt++) {
    if (exited) break;
    if (await redisAnswers(url, 200)) return server;
    await new Promise((done) => setTimeout(done, 50));
  }
  if (!exited) await stop(server);
  // redis-server logs a line per event; the one saying why it gave up is usually the last.
  const why = output.trim().split('\n').at(-1) ?? 'no output';
  fail(`started redis-server on port ${port}, but it does not answer (${why}); ${INSTALL_HINT}`);
}

/** Stops the server with SIGTERM (with nothing to save, it exits at once) and waits for it. */
async function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((done) => server.once('exit', done));
  server.kill('SIGTERM');
  await exited;
}

/**
 * Ends the run with `message` as its one line. Throwing would bury it under vitest's "No test files
 * found" and an "Unhandled Error" banner; nothing has started yet that needs cleaning up.
 */
function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
