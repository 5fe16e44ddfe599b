import { defineConfig } from 'vitest/config';

/*
 * The tests `npm run mutation` (Stryker, stryker.config.json) runs against each mutant: only the unit and property
 * tests that exercise the rule files it mutates, so a mutant is judged in seconds, not by the whole suite.
 */
export default defineConfig({
  test: {
    include: [
      'test/unit/broker-rules/**/*.test.ts',
      'test/unit/controller-rules/**/*.test.ts',
      'test/unit/producer/createPartitionsAction.test.ts',
      'test/unit/log/compactionRules.test.ts',
      'test/unit/log/retention.test.ts',
      'test/unit/log/leaderEpochFileCache.test.ts',
      'test/unit/client/murmur2.test.ts',
      'test/unit/client/builtInPartitioner.test.ts',
      'test/property/controller-rules/**/*.test.ts',
      'test/property/log/leaderEpochCache.property.test.ts',
      'test/property/client/murmur2.property.test.ts',
      'test/property/client/builtInPartitioner.property.test.ts',
    ],
    setupFiles: ['test/support/fastCheckSeed.ts'],
    environment: 'node',
    testTimeout: 60_000,
  },
});
