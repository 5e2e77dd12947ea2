import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedToRedis7, createRedis, RedisTooOldError } from '../../src/connections/redis-connection.ts';
import { killedAfterTest } from '../support/children.ts';
import { compiledProgram } from '../support/compiled-programs.ts';
import { REDIS_URL } from '../support/harness.ts';

// Redis 6 cannot be installed here: a stand-in speaks just enough RESP to be connected to, and
// answers as Redis 6 does the one question asked of it (whether scripts can check ACL permissions).
let redis6: Server;
let redis6Url: string;
const asked: string[] = [];
beforeAll(async () => {
  redis6 = createServer((socket) => {
    socket.on('data', (chunk) => {
      // Each command is an array of bulk strings; its name is the first.
      for (const command of chunk
        .toString()
        .split(/^\*\d+\r\n/m)
        .filter(Boolean)) {
        const name = command.split('\r\n')[1]?.toUpperCase() ?? '';
        asked.push(name);
        if (name === 'INFO') {
          const info = '# Server\r\nredis_version:6.2.14\r\nloading:0\r\n';
          socket.write(`$${info.length}\r\n${info}\r\n`);
        } else if (name === 'EVAL') socket.write(':0\r\n');
        else socket.write('+OK\r\n');
      }
    });
  });
  redis6.listen(0, '127.0.0.1');
  await once(redis6, 'listening');
  const address = redis6.address();
  redis6Url = `redis://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => {
  redis6?.close();
});

describe('connectedToRedis7', () => {
  it('refuses a Redis whose scripts cannot check ACL permissions, and closes its connection', async () => {
    const connection = createRedis(redis6Url, 'api');
    await expect(connectedToRedis7(connection)).rejects.toBeInstanceOf(RedisTooOldError);
    expect(asked).toContain('EVAL');
    await expect.poll(() => connection.status).toBe('end');
  });

  it('accepts Redis 7', async () => {
    const connection = await connectedToRedis7(createRedis(REDIS_URL, 'api'));
    expect(connection.status).toBe('ready');
    connection.disconnect();
  });
});

describe('npm run worker on a Redis older than 7', { timeout: 60_000 }, () => {
  // With pool threads the refusal happens in a thread, whose thrown errors reach the process as
  // plain Errors; either way the operator reads one line, not a stack.
  it.each(['0', '1'])('says why in one line and exits with 1 (WORKER_THREADS=%s)', async (threads) => {
    const worker = killedAfterTest(
      spawn(process.execPath, compiledProgram('workers/main.ts'), {
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        env: {
          PATH: process.env.PATH,
          REDIS_URL: redis6Url,
          REDIS_AUTOSTART: 'false',
          WORKER_THREADS: threads,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stderr = '';
    worker.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(worker, 'exit');
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'The arena needs Redis 7 or newer: its scripts check ACL permissions (redis.acl_check_cmd), which this Redis lacks.',
    );
  });
});
