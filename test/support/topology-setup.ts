import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { announce } from './announcement.ts';
import { compilePrograms } from './compiled-programs.ts';
import { RedisClusterSet } from './redis-cluster.ts';
import { SentinelSet } from './sentinel-set.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The settings that point a harness at the project's Redis topology (none: one server). */
    redisTopology: Record<string, string>;
    /** Where the setup announces that the topology has formed (test/support/announcement.ts). */
    redisTopologyFormed: string;
  }
}

/**
 * Vitest `globalSetup` of the topology projects (vitest.config.ts): starts the project's Redis
 * Cluster (three primaries, three replicas) or Sentinel set (a primary, a replica, three sentinels)
 * on loopback, and hands its settings to the harness (`createHarness`), so the same arena tests
 * run against it as against one server.
 *
 * A set takes about 7 s to form, and vitest runs the projects' global setups one after another
 * before any test: waiting here held every test back 14 s. The setup hands out the set's
 * addresses at once and announces when it has formed; the harness waits for that.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await compilePrograms();
  // These sets never fail over on purpose: a failover the load of the whole suite set off (a node
  // that missed a second's pings) ended event streams mid-test (challenges.test.ts, twice).
  const calm = { downAfterMs: 15_000 };
  const topology = project.name.endsWith('cluster')
    ? await RedisClusterSet.allocate()
    : await SentinelSet.allocate();
  const announcements = mkdtempSync(join(tmpdir(), 'vitest-topology-'));
  const formedAt = join(announcements, 'formed.json');
  project.provide('redisTopology', topology.env);
  project.provide('redisTopologyFormed', formedAt);
  const formed = topology.form(calm).then(
    () => announce(formedAt, { ok: true }),
    (error: unknown) =>
      announce(formedAt, { ok: false, error: `the ${project.name} did not form: ${error}` }),
  );
  return async () => {
    await formed;
    await topology.stop();
    await rm(announcements, { recursive: true, force: true });
  };
}
