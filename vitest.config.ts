import { defineConfig } from 'vitest/config';

// One config, one project per kind of test. `npm test` runs them all; `--project NAME` runs one.
export default defineConfig({
  test: {
    benchmark: { include: [] },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: ['test/support/fastCheckSeed.ts'], environment: 'node' },
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
