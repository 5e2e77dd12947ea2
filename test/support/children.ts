import type { ChildProcess } from 'node:child_process';
import { onTestFinished } from 'vitest';

/** Resolves with the exit code once `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Ties a child process to the test that spawns it: when the test ends (passed, failed or timed
 * out), a child still running is killed with SIGKILL and awaited, before the file's `afterAll`
 * deletes its keys. A reaper on the test process' `exit` event is not enough: it does not fire
 * when vitest ends the fork, and an orphaned worker went on writing to Redis after a failure.
 * Must be called inside a test (`onTestFinished` throws elsewhere), which is where tests spawn.
 *
 * @example
 * const worker = killedAfterTest(spawn(process.execPath, ['workers/main.ts']));
 */
export function killedAfterTest<T extends ChildProcess>(child: T): T {
  onTestFinished(async () => {
    if (child.pid === undefined) return; // never started: spawn emitted 'error', not 'exit'
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child);
  });
  return child;
}
