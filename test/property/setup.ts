import fc from 'fast-check';

// A failing property prints its seed; rerun exactly with DEFAULT_SEED=<seed> npm run test:property.
if (process.env.DEFAULT_SEED) {
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(process.env.DEFAULT_SEED) });
}
