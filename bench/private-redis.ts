import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { redisAnswers } from '../src/store/local-redis.ts';

/** A redis-server of the bench's own, on a free port: its CLIENT LIST is this run's alone. */
export async function privateRedis(): Promise<{ url: string; stop(): void }> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((closed) => probe.close(closed));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', ''], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  while (!(await redisAnswers(url, 200))) await new Promise((resume) => setTimeout(resume, 50));
  return { url, stop: () => child.kill() };
}
