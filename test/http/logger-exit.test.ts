import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { killedAfterTest } from '../support/children.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// `npm start` and `npm run worker` end with exitOnceLogged. A process that exits at once loses the
// tail of a line whose write is still in flight, and writes later lines before it.
describe('a process that exits once its lines are logged', () => {
  it('writes every line whole and in order, even to a reader that falls behind', async () => {
    const child = killedAfterTest(
      spawn(process.execPath, ['--import', 'tsx', 'test/support/programs/log-then-exit.ts'], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    // More than a pipe holds (the first line is 1 MB) is left unread for a while.
    child.stdout!.pause();
    await sleep(1000);
    child.stdout!.resume();
    expect(await exited).toBe(0);
    const lines = output.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['first', 'last']);
  });
});
