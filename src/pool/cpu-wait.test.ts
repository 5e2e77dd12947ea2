import { describe, expect, it } from 'vitest';
import { cpuWaitMeter, threadSchedule } from './cpu-wait.ts';

function burn(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

describe.runIf(process.platform === 'linux')('the thread schedule (Linux schedstat)', () => {
  it('counts the time this thread ran, in nanoseconds', () => {
    const before = threadSchedule()!;
    burn(30);
    const after = threadSchedule()!;
    // Run time grows by about the time spent burning (less whatever the machine took away).
    expect(after.runNs - before.runNs).toBeGreaterThan(10e6);
    expect(after.runNs - before.runNs).toBeLessThan(1e9);
    expect(after.waitNs).toBeGreaterThanOrEqual(before.waitNs);
  });

  it('meters the share of each window spent waiting for a CPU, afresh each time', () => {
    const meter = cpuWaitMeter();
    burn(20);
    const first = meter();
    burn(20);
    const second = meter();
    for (const share of [first, second]) {
      expect(share).not.toBeNull();
      expect(share!).toBeGreaterThanOrEqual(0);
      expect(share!).toBeLessThanOrEqual(1);
    }
  });
});
