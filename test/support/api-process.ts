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
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /open (http:\/\/[^/\s]+)\//.exec(output)?.[1];
      if (url) resolve({ child, url, output: () => output });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the API exited with ${code}: ${output}`)));
  });
}
