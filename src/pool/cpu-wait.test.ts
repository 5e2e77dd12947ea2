import { describe, expect, it } from 'vitest';
import { cpuWaitMeter, threadSchedule } from './cpu-wait.ts';

/** Runs on this thread until it has had `ms` of CPU by its own schedule, or `capMs` of wall time passed. */
function burnCpu(ms: number, capMs: number): { cpuNs: number; wallMs: number } {
  const before = threadSchedule()!;
  const started = performance.now();
  let now = before;
  while (now.runNs - before.runNs < ms * 1e6 && performance.now() - started < capMs) now = threadSchedule()!;
  return { cpuNs: now.runNs - before.runNs, wallMs: performance.now() - started };
}

// Linux with schedstats; elsewhere (or a kernel without them) the meter says null, as documented.
describe.runIf(threadSchedule() !== null)('the thread schedule (Linux schedstat)', () => {
  it("counts this thread's time on a CPU, in nanoseconds, never more than the wall time", () => {
    // Read as the wrong field or unit, the CPU time would not reach 20 ms before the cap.
    const { cpuNs, wallMs } = burnCpu(20, 5000);
    expect(cpuNs).toBeGreaterThanOrEqual(20e6);
    expect(cpuNs / 1e6).toBeLessThanOrEqual(wallMs + 5);
  });

  it('meters the share of each window spent waiting for a CPU, afresh each time', () => {
    const meter = cpuWaitMeter();
    burnCpu(10, 1000);
    const first = meter();
    burnCpu(10, 1000);
    const second = meter();
    for (const share of [first, second]) {
      expect(share).not.toBeNull();
      expect(share!).toBeGreaterThanOrEqual(0);
      expect(share!).toBeLessThanOrEqual(1);
    }
  });
});
