import { readFileSync } from 'node:fs';
import type { RedisClient } from '../src/connections/redis-connection.ts';

/** Clock ticks a second, in which /proc reports a process's CPU (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = 100;

/**
 * Microseconds of CPU a process has used (user and system, every thread, from /proc on Linux), or
 * NaN where there is no /proc: a child's own cost, which a load generator on the same cores does
 * not blur as it blurs a rate.
 */
export function processCpuMicros(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of stat (11 and 12 after the command), in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** Microseconds of CPU the Redis server has used since it started (`INFO cpu`, all its threads). */
export async function redisCpuMicros(redis: RedisClient): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (field: string) =>
    Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}
