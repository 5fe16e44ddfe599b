import { checkProperty } from './property';

/** Every acknowledged write is in the final committed log of the healed cluster (the checkers' lost-write). */
export const noAckedLoss = checkProperty(
  'no-acked-loss',
  'lost-write',
  'no acknowledged write is missing from the final committed log of the healed cluster',
);
