import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Integration tests talk to a real Redis and real loopback bots, each file under its own key
// prefix, so files may run in parallel: three forks on this machine's two cores. Files share a
// fork's module cache (isolate: false): each fork imports the arena once, not once per file (118 s
// of imports -> 11 s); files keep no state in modules, and every harness has its own prefix. Where
// the suite's time goes, and how to profile it (TEST_CPU_PROFILE_DIR): docs/testing.md.
/**
 * Arena tests that also run against a Redis Cluster and a Sentinel set (each project starts its
 * own on loopback: test/support/topology-setup.ts): push and pull play with event streams,
 * challenges, a tournament, ratings applied once. Chosen among the files that reach Redis only
 * through the harness.
 */
const TOPOLOGY_FILES = [
  'test/match/runner.test.ts',
  'test/pull/pull.test.ts',
  'test/fair-play/challenges.test.ts',
  'test/tournaments/round-robin.test.ts',
  'test/ratings/ratings.test.ts',
  'test/accounts/sessions.test.ts',
];

export default defineConfig({
  // The SDK from its source, as tsconfig.json's `paths` has it for tsc and tsx: tests need no build of sdk/.
  resolve: {
    alias: { '@reversi-arena/client': fileURLToPath(new URL('./sdk/src/index.ts', import.meta.url)) },
  },
  test: {
    pool: 'forks',
    maxWorkers: 3,
    isolate: false,
    // One solo layout key for every file: files share a fork's modules, and the solo game takes
    // one key per process (src/support/solo-layout-key.ts).
    env: { SOLO_SECRET: 'vitest-solo-layout-key' },
    setupFiles: process.env.TEST_CPU_PROFILE_DIR ? ['test/support/cpu-profile.ts'] : [],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'one server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
          // Starts a throwaway Redis when none answers at REDIS_URL, so `npm test` needs no setup by hand.
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      ...['cluster', 'sentinel'].map((topology) => ({
        extends: true as const,
        test: {
          name: topology,
          include: TOPOLOGY_FILES,
          globalSetup: ['test/support/topology-setup.ts'],
          // A Redis command's errors carry the stack that sent it (an unhandled one says who).
          setupFiles: [
            'test/support/redis-command-origins.ts',
            ...(process.env.TEST_CPU_PROFILE_DIR ? ['test/support/cpu-profile.ts'] : []),
          ],
        },
      })),
    ],
  },
});
