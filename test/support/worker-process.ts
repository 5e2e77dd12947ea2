import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { exited, killedAfterTest } from './children.ts';
import { compiledProgram } from './compiled-programs.ts';
import type { Harness } from './harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A real `npm run worker` process (compiled) on the harness' Redis prefix, killed when the test ends. */
export function spawnWorker(h: Harness, env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, compiledProgram('workers/main.ts'), {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_URL: h.config.redis.url,
      REDIS_PREFIX: h.prefix,
      ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
      WORKER_LOCK_MS: '2000',
      WORKER_CONCURRENCY: '2',
      // Matches on the process' own thread: a pool thread loads the sources again. The threaded
      // path has tests of its own (pool-threads, the hand-back in test/match/worker.test.ts).
      WORKER_THREADS: '0',
      MATCHMAKING_ENABLED: 'false',
      EVENTS: 'off',
      // As the harness: every test bot is registered from loopback and served there.
      ALLOW_SAME_OPERATOR_GAMES: 'true',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // A test that fails or times out must not leave its workers playing on the shared Redis.
  return killedAfterTest(child);
}

export { exited };
