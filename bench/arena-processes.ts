/**
 * The arena's processes as benches run them, on a Redis of their own: the API in a child process
 * (serve-api.ts) and workers as `npm run worker` runs them, both on `arenaEnv`'s settings.
 */

import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The settings of a bench's arena: loopback bots, no limits in the way, quiet logs. */
export function arenaEnv(redisUrl: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: 'bench',
    REDIS_AUTOSTART: 'false',
    ADMIN_TOKEN,
    ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
    ALLOW_SAME_OPERATOR_GAMES: 'true',
    MATCHMAKING_ENABLED: 'false',
    HOUSE_BOTS: 'false',
    RATE_LIMIT_PER_IP: '1000000',
    RATE_LIMIT_PER_TOKEN: '1000000',
    RATE_LIMIT_REGISTRATIONS_PER_HOUR: '100000',
    LOG_LEVEL: 'warn',
    ...env,
  };
}

/** The API's process, with its base URL and a way to read its CPU time and 5xx count. */
export interface ApiProcess {
  readonly base: string;
  readonly child: ChildProcess;
  usage(): Promise<{ cpuMs: number; errors: number }>;
}

export async function forkApi(env: NodeJS.ProcessEnv): Promise<ApiProcess> {
  const child = fork(fileURLToPath(new URL('serve-api.ts', import.meta.url)), [], {
    env,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  return {
    base: `http://127.0.0.1:${port}`,
    child,
    usage() {
      const answer = once(child, 'message').then(([message]) => message as { cpuMs: number; errors: number });
      child.send('cpu');
      return answer;
    },
  };
}

/** A worker process, as `npm run worker` starts it. */
export function spawnWorker(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Stops the processes with SIGTERM and waits for them to exit. */
export async function stopProcesses(...children: ChildProcess[]): Promise<void> {
  const exits = children.map((child) => (child.exitCode === null ? once(child, 'exit') : null));
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(exits);
}

/** POSTs JSON with a bearer token (the admin's by default); throws on an error answer. */
export async function post(base: string, path: string, body: unknown, token = ADMIN_TOKEN) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}
