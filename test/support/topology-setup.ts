import type { TestProject } from 'vitest/node';
import { compilePrograms } from './compiled-programs.ts';
import { RedisClusterSet } from './redis-cluster.ts';
import { SentinelSet } from './sentinel-set.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The settings that point a harness at the project's Redis topology (none: one server). */
    redisTopology: Record<string, string>;
  }
}

/**
 * Vitest `globalSetup` of the topology projects (vitest.config.ts): starts the project's Redis
 * Cluster (three primaries, three replicas) or Sentinel set (a primary, a replica, three sentinels)
 * on loopback, and hands its settings to the harness (`createHarness`), so the same arena tests
 * run against it as against one server.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await compilePrograms();
  // These sets never fail over on purpose: a failover the load of the whole suite set off (a node
  // that missed a second's pings) ended event streams mid-test (challenges.test.ts, twice).
  const calm = { downAfterMs: 15_000 };
  const topology = project.name.endsWith('cluster')
    ? await RedisClusterSet.start(calm)
    : await SentinelSet.start(calm);
  project.provide('redisTopology', topology.env);
  return () => topology.stop();
}
