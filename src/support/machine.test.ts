import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cpuQuota, type ReadText, usableCores } from './machine.ts';

/** A machine's files, as `cpuQuota` reads them. */
const files =
  (contents: Record<string, string>): ReadText =>
  (path) =>
    contents[path] ?? null;

describe('cpuQuota', () => {
  it('reads a cgroup v2 cpu.max at the root of the container', () => {
    const read = files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '150000 100000\n' });
    expect(cpuQuota(read)).toBe(1.5);
  });

  it('takes the tightest quota from the group up to the root (v2)', () => {
    const read = files({
      '/proc/self/cgroup': '0::/kubepods/pod1/app\n',
      '/sys/fs/cgroup/kubepods/pod1/app/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/kubepods/pod1/cpu.max': '200000 100000\n',
      '/sys/fs/cgroup/kubepods/cpu.max': '800000 100000\n',
    });
    expect(cpuQuota(read)).toBe(2);
  });

  it('reads cgroup v1 cfs quota and period, under either mount name', () => {
    const v1 = (mount: string) =>
      files({
        '/proc/self/cgroup': '4:memory:/x\n3:cpu,cpuacct:/docker/abc\n0::/\n',
        [`${mount}/docker/abc/cpu.cfs_quota_us`]: '50000\n',
        [`${mount}/docker/abc/cpu.cfs_period_us`]: '100000\n',
      });
    expect(cpuQuota(v1('/sys/fs/cgroup/cpu'))).toBe(0.5);
    expect(cpuQuota(v1('/sys/fs/cgroup/cpu,cpuacct'))).toBe(0.5);
  });

  it('is null without a quota: max, -1, or no files at all', () => {
    expect(
      cpuQuota(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': 'max 100000\n' })),
    ).toBeNull();
    const v1 = files({
      '/proc/self/cgroup': '1:cpu:/\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
    });
    expect(cpuQuota(v1)).toBeNull();
    expect(cpuQuota(files({}))).toBeNull();
  });
});

describe('usableCores', () => {
  it('is the cores there are when no quota is set', () => {
    expect(usableCores(files({}))).toBe(availableParallelism());
  });

  it('is the whole CPUs of a quota, at least one, never more than the cores', () => {
    const quota = (cpuMax: string) =>
      files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': cpuMax });
    expect(usableCores(quota('50000 100000'))).toBe(1);
    expect(usableCores(quota(`${availableParallelism() * 100000 + 50000} 100000`))).toBe(
      availableParallelism(),
    );
    if (availableParallelism() >= 2) expect(usableCores(quota('250000 100000'))).toBe(2);
  });
});
