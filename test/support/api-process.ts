import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
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
  /** Resolves once it has printed a match of `pattern`, stdout or stderr (see `printedBy`). */
  printed(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/**
 * Resolves with the first match of `pattern` in `output()` (what `child` printed on `streams` so
 * far), looked at now and at each chunk it prints: woken by its output, never polling. Rejects if
 * it exits first, or after `timeoutMs`. Register the listener that collects `output` first.
 */
export function printedBy(
  child: ChildProcess,
  streams: readonly Readable[],
  output: () => string,
  pattern: RegExp,
  timeoutMs = 15_000,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      for (const stream of streams) stream.off('data', look);
      child.off('exit', exited);
    };
    const look = () => {
      const found = pattern.exec(output());
      if (found === null) return;
      stop();
      resolve(found);
    };
    const exited = (code: number | null) => {
      stop();
      reject(new Error(`the process exited with ${code} before printing ${pattern}: ${output()}`));
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the process did not print ${pattern} within ${timeoutMs} ms: ${output()}`));
    }, timeoutMs);
    for (const stream of streams) stream.on('data', look);
    child.once('exit', exited);
    look();
  });
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
  const printed = (pattern: RegExp, timeoutMs?: number) =>
    printedBy(child, [child.stdout!, child.stderr!], () => output, pattern, timeoutMs);
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
