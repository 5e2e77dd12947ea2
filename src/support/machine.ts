import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Reads a file's text, or null when it cannot be read. */
export type ReadText = (path: string) => string | null;

const readText: ReadText = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** `quota / period` CPUs, or null for no limit (`max`, `-1`) or numbers that make no sense. */
function cpus(quota: string | undefined, period: string | undefined): number | null {
  const q = Number(quota);
  const p = Number(period);
  return Number.isFinite(q) && q > 0 && Number.isFinite(p) && p > 0 ? q / p : null;
}

/** `path` and each folder above it, up to the hierarchy's root (`''`). */
function selfAndAncestors(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return Array.from({ length: parts.length + 1 }, (_, i) => parts.slice(0, parts.length - i).join('/'));
}

/**
 * The CPUs this process may use under its control group's quota (cgroup v2 `cpu.max`, or v1
 * `cpu.cfs_quota_us` over `cpu.cfs_period_us`), the tightest one from its group up to the root;
 * null when none is set. A container limited to 2 CPUs on a 64-core host sees 64 cores through
 * `os.availableParallelism()` (Node 20's libuv reads affinity, not quotas), and one thread per core
 * would have 64 threads share 2 CPUs' time.
 *
 * `read` is given in tests; by default it reads /proc and /sys/fs/cgroup.
 *
 * @example
 * cpuQuota(); // 1.5 in a container run with --cpus=1.5, null on a bare machine
 */
export function cpuQuota(read: ReadText = readText): number | null {
  const groups = (read('/proc/self/cgroup') ?? '').split('\n');
  const limits: number[] = [];
  for (const line of groups) {
    const [, controllers, path] = line.match(/^\d+:([^:]*):(.*)$/) ?? [];
    if (path === undefined) continue;
    if (controllers === '') {
      // cgroup v2: one hierarchy; the group's path may not be visible inside a container, whose
      // own root then holds its limit.
      for (const dir of selfAndAncestors(path)) {
        const [quota, period] = (read(`/sys/fs/cgroup/${dir}${dir ? '/' : ''}cpu.max`) ?? '')
          .trim()
          .split(/\s+/);
        const limit = cpus(quota, period);
        if (limit !== null) limits.push(limit);
      }
    } else if (controllers!.split(',').includes('cpu')) {
      for (const mount of ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct']) {
        for (const dir of selfAndAncestors(path)) {
          const base = `${mount}/${dir}${dir ? '/' : ''}`;
          const limit = cpus(
            read(`${base}cpu.cfs_quota_us`)?.trim(),
            read(`${base}cpu.cfs_period_us`)?.trim(),
          );
          if (limit !== null) limits.push(limit);
        }
      }
    }
  }
  return limits.length === 0 ? null : Math.min(...limits);
}

/**
 * The cores this process can keep busy: the cores it may run on, fewer under a CPU quota (whole
 * CPUs, at least one).
 */
export function usableCores(read: ReadText = readText): number {
  const quota = cpuQuota(read);
  const cores = availableParallelism();
  return quota === null ? cores : Math.max(1, Math.min(cores, Math.floor(quota)));
}
