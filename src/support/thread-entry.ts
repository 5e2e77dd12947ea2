import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The URL of a thread entry beside `from` (an `import.meta.url`), in that module's own form: `.ts`
 * when run from source (tsx, vitest), `.js` once built.
 *
 * @example
 * const entry = threadEntry('./fit-worker', import.meta.url);
 */
export function threadEntry(name: string, from: string): URL {
  return new URL(`${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);
}

/**
 * A new thread for the entry. From source it must load TypeScript itself: vitest compiles this
 * process' modules in a way a thread does not inherit, and on Node 20 a thread's `--import` of
 * tsx's loader does not reach its entry ("Unknown file extension"), so a two-line bootstrap
 * registers tsx in the thread and then imports the entry. Under `npm start` (tsx) the same works.
 * A built `.js` entry starts directly.
 *
 * @example
 * const thread = startThread(threadEntry('./fit-worker', import.meta.url));
 */
export function startThread(
  entry: URL,
  options: Pick<WorkerOptions, 'workerData' | 'name' | 'resourceLimits'> = {},
): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)})
    .then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}
