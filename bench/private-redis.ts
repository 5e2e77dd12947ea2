import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { redisAnswers } from '../src/connections/local-redis.ts';

/**
 * A redis-server of the bench's own, on a free port: its CLIENT LIST is this run's alone. With
 * `nice`, it runs at that lower CPU priority (see bench:concurrency's `--nice`).
 */
export async function privateRedis({ nice }: { nice?: number } = {}): Promise<{ url: string; stop(): void }> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((closed) => probe.close(closed));
  const child = spawn(
    ...niced(nice, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '']),
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  while (!(await redisAnswers(url, 200))) await new Promise((resume) => setTimeout(resume, 50));
  return { url, stop: () => child.kill() };
}

/** A command and its arguments, run through `nice -n` when a niceness is given. */
export function niced(nice: number | undefined, command: string, args: string[]): [string, string[]] {
  return nice === undefined ? [command, args] : ['nice', ['-n', String(nice), command, ...args]];
}
