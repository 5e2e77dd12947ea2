import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killedAfterTest } from './children.ts';
import { compiledProgram } from './compiled-programs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ApiProcess {
  readonly child: ChildProcess;
  /** Where it listens, from its "open http://…/" line. */
  readonly url: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /**
   * Resolves once it has printed `text` (now or later: woken by its output, never polling); rejects
   * after `timeoutMs`, or if it exits first.
   */
  printed(text: string, timeoutMs?: number): Promise<void>;
}

/**
 * A real `npm start` process (src/main.ts compiled, or `program`: node's arguments) on a free port,
 * with the given environment and nothing inherited but PATH; resolves once it prints the address to
 * open. Killed when the test ends.
 */
export function startApiProcess(
  env: Record<string, string>,
  program: readonly string[] = compiledProgram('src/main.ts'),
): Promise<ApiProcess> {
  const child = spawn(process.execPath, program, {
    cwd: ROOT,
    // No pool thread unless a test asks for one: each thread loads the sources again.
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      REDIS_AUTOSTART: 'false',
      WORKER_THREADS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test that fails or times out must not leave the process running.
  killedAfterTest(child);
  let output = '';
  const printed = (text: string, timeoutMs = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        child.stdout!.off('data', look);
        child.stderr!.off('data', look);
        child.off('exit', exited);
      };
      const look = () => {
        if (!output.includes(text)) return;
        stop();
        resolve();
      };
      const exited = (code: number | null) => {
        stop();
        reject(new Error(`the API exited with ${code} before printing "${text}": ${output}`));
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`the API did not print "${text}" within ${timeoutMs} ms: ${output}`));
      }, timeoutMs);
      // After `read` (registered first), so each chunk is in `output` when looked at.
      child.stdout!.on('data', look);
      child.stderr!.on('data', look);
      child.once('exit', exited);
      look();
    });
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /open (http:\/\/[^/\s]+)\//.exec(output)?.[1];
      if (url) resolve({ child, url, output: () => output, printed });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the API exited with ${code}: ${output}`)));
  });
}
