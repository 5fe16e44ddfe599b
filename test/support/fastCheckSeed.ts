import fc from 'fast-check';

/*
 * `npm test` is deterministic: every fast-check property draws its cases from one fixed seed, so a clean clone
 * passes or fails the same way on every run and CI never turns red by the luck of the draw.
 * `npm run fuzz` (KAFKASIM_FUZZ=1) draws a fresh seed per property instead, to look further; a failure prints
 * its seed and path, and `DEFAULT_SEED=<seed> npm run test:property` reruns it exactly.
 */
export const FIXED_SEED = 20_261_130;

const chosen = process.env.DEFAULT_SEED;
if (chosen !== undefined && chosen !== '') {
  const seed = Number(chosen);
  if (!Number.isInteger(seed)) throw new Error(`DEFAULT_SEED must be an integer (fast-check's seed); got "${chosen}"`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
} else if (process.env.KAFKASIM_FUZZ !== '1') {
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: FIXED_SEED });
}
