import { watch } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

/** What a global setup announces when the work it left running is done: done, or why not. */
export type Outcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/**
 * Writes `outcome` to `path` in one step (a file renamed into place), for `announced` to read
 * from another process.
 */
export async function announce(path: string, outcome: Outcome): Promise<void> {
  await writeFile(`${path}.partial`, JSON.stringify(outcome));
  await rename(`${path}.partial`, path);
}

/**
 * Waits for the announcement at `path`, woken by the directory's change events rather than by
 * polling, and throws when it says the work failed or none comes within `timeoutMs`.
 */
export async function announced(path: string, timeoutMs: number): Promise<void> {
  const outcome = await new Promise<Outcome>((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      watcher.close();
      finish();
    };
    const read = () =>
      readFile(path, 'utf8').then(
        (text) => settle(() => resolve(JSON.parse(text) as Outcome)),
        () => {}, // not there yet
      );
    const watcher = watch(dirname(path), (_event, name) => {
      if (name === basename(path)) void read();
    });
    const timer = setTimeout(
      () => settle(() => reject(new Error(`nothing announced at ${path} within ${timeoutMs} ms`))),
      timeoutMs,
    );
    void read(); // announced before the watch began
  });
  if (!outcome.ok) throw new Error(outcome.error);
}
