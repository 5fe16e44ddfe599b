import { defineConfig } from 'vitest/config';

// One config, one project per kind of test. `npm test` runs them all; `--project NAME` runs one.
export default defineConfig({
  test: {
    benchmark: { include: [] },
    // Vitest defaults to (cores - 1) workers, which is ONE on the 2-core machines this suite runs on; the tests are
    // CPU-bound simulations, so both cores are used (the e2e project still runs its files one at a time).
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // A few unit tests run a short scenario; 5 s (vitest's default) is too tight on a loaded shared machine.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: ['test/support/fastCheckSeed.ts'], environment: 'node', testTimeout: 30_000 },
      },
      {
        extends: true,
        test: {
          name: 'property',
          include: ['test/property/**/*.test.ts'],
          setupFiles: ['test/support/fastCheckSeed.ts'],
          testTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: { name: 'scenarios', include: ['test/scenarios/**/*.test.ts'], setupFiles: ['test/support/fastCheckSeed.ts'], testTimeout: 300_000 },
      },
      { extends: true, test: { name: 'determinism', include: ['test/determinism/**/*.test.ts'], testTimeout: 120_000 } },
      // The CLI fuzzed from outside (test/fuzz): its cases run on worker threads the test watches with a clock.
      { extends: true, test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'] } },
      // Usage examples, written as a user would (importing 'kafkasim'); they run with the rest.
      { extends: true, test: { name: 'examples', include: ['examples/**/*.test.ts'], testTimeout: 300_000 } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
