import { defineKinds, num, str, type KindsOf } from '../core/traceSchema';

/**
 * The scenario's operator actions. In a module of their own, so the trace schema (traceKinds.ts) does not import
 * the runner: the runner imports the scenario readers, which read captions against that schema.
 */
export const SCENARIO_KINDS = defineKinds({
  /** An operator action of the scenario began (its outcome follows as an admin.* event). */
  'scenario.action': { index: num, action: str, detail: str },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof SCENARIO_KINDS> {}
}
