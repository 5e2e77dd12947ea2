import { readFileSync } from 'node:fs';

/**
 * How long the calling thread has run on a CPU and waited for one while runnable, in nanoseconds,
 * from Linux's `/proc/thread-self/schedstat`; null where that file cannot be read (other systems,
 * kernels without schedstats). The wait is what a busy machine adds to a loop's delay that no
 * change to the loop itself can remove: read twice, it tells the two apart.
 */
export function threadSchedule(): { readonly runNs: number; readonly waitNs: number } | null {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
    const runNs = Number(run);
    const waitNs = Number(wait);
    return Number.isFinite(runNs) && Number.isFinite(waitNs) ? { runNs, waitNs } : null;
  } catch {
    return null;
  }
}

/**
 * A meter of the calling thread's CPU wait: each call answers the share of the wall time since the
 * previous call (or since the meter was made) that the thread waited for a CPU, and starts a new
 * window; null where the system does not tell.
 */
export function cpuWaitMeter(): () => number | null {
  let since = { at: performance.now(), schedule: threadSchedule() };
  return () => {
    const now = { at: performance.now(), schedule: threadSchedule() };
    const waitedNs = now.schedule && since.schedule ? now.schedule.waitNs - since.schedule.waitNs : null;
    const share = waitedNs === null || now.at <= since.at ? null : waitedNs / 1e6 / (now.at - since.at);
    since = now;
    return share;
  };
}
