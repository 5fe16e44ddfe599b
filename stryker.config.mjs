// @ts-check
/**
 * `npm run mutation`: Stryker mutation testing of the pure rules (issue 23). Not part of `npm test`.
 * Each mutant is judged by the unit and property tests of vitest.mutation.config.ts only (the tests of these files),
 * so a full run takes minutes, not hours. Reports: reports/mutation/ (git-ignored).
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  coverageAnalysis: 'perTest',
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  mutate: (process.env.MUTATE ?? '').trim() !== ''
    ? process.env.MUTATE.split(',')
    : [
        'sim/kafka/broker/rules/*.ts',
        'sim/kafka/controller/rules/*.ts',
        'sim/kafka/log/cleanerSelection.ts',
        'sim/kafka/log/retention.ts',
        'sim/kafka/log/leaderEpochFileCache.ts',
        'sim/kafka/client/murmur2.ts',
        'sim/kafka/client/builtInPartitioner.ts',
      ],
  // Stryker rewrites tsconfig.json through the `typescript` package's JS API, which TypeScript 7 (native) no
  // longer has; our tsconfig has no extends or references to rewrite, so point it at no file.
  tsconfigFile: 'tsconfig.stryker-has-none.json',
  ignorePatterns: ['artifacts', 'explore-out', 'dist', 'dist-e2e', 'ui', 'reports'],
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  tempDirName: '.stryker-tmp',
  timeoutMS: 20_000,
};
