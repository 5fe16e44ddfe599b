import { checkProperty } from './property';

/** A producer's acknowledged writes to one key land in the order it sent them (the checkers' nonmonotonic-send). */
export const orderPerKey = checkProperty(
  'order-per-key',
  'nonmonotonic-send',
  "a producer's acknowledged writes to one key land in the order it sent them",
  (spec) => ({
    ...spec,
    // Order is per key: give keyless workloads a small key space so the property has something to judge.
    producers: (spec.producers ?? []).map((p) => ({
      ...p,
      workload: (Array.isArray(p.workload) ? p.workload : [p.workload]).map((w) => (w.keys === undefined || w.keys.kind === 'none' ? { ...w, keys: { kind: 'uniform', count: 10 } } : w)),
    })),
  }),
);
