import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Two cores: two forks at most. Integration tests talk to a real Redis and real loopback bots,
// each file under its own key prefix, so files may run in parallel.
export default defineConfig({
  // The SDK from its source, as tsconfig.json's `paths` has it for tsc and tsx: tests need no build of sdk/.
  resolve: {
    alias: { '@reversi-arena/client': fileURLToPath(new URL('./sdk/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Starts a throwaway Redis when none answers at REDIS_URL, so `npm test` needs no setup by hand.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
