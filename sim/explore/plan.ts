import fc from 'fast-check';
import { Fnv1a64 } from '../core/hash';
import { ms } from '../core/time';
import { cutToDuration } from '../scenario/cutDuration';
import { applyOverrides } from '../scenario/overrides';
import type { ScenarioSpec } from '../scenario/spec';
import { generatedScenario, scenarioWithFaults } from './arbitraries/scenario';
import type { StepKind } from './arbitraries/faultStep';
import type { Budget } from './budget';
import { msOf } from './scenarioTime';
import { propertyByName, type PropertyOptions, type RunProperty } from './properties/index';

/**
 * Everything that fixes a sweep, as plain data (a worker rebuilds the same generator from it): the
 * property, the base scenario (or none: whole scenarios are drawn), the --set overrides, the fault budget,
 * the sweep's seed and the generator's limits.
 */
export interface ExplorePlan {
  readonly property: string;
  /** The base scenario document; null draws the cluster, topic, clients and workload too. */
  readonly base: ScenarioSpec | null;
  readonly sets: readonly string[];
  readonly budget: Budget;
  /** The sweep's seed: run k depends only on (seed, k). */
  readonly seed: number | string;
  /** Scenario duration (faults start within it) and quiet period, ms; default: the base's, or 20 s and 15 s. */
  readonly durationMs?: number;
  readonly quietMs?: number;
  /** one-at-a-time: pause after each fault, ms. */
  readonly settleMs?: number;
  readonly maxFaults?: number;
  /** Longest fault, ms. */
  readonly maxFaultMs?: number;
  /** Fault verbs to draw (default: all of them). */
  readonly kinds?: readonly StepKind[];
  /** eventually-available's bound, ms. */
  readonly withinMs?: number;
  /** Simulation runs the shrinker may spend on one counterexample (0: do not shrink). */
  readonly shrinkRuns?: number;
}

export const DEFAULT_DURATION_MS = 20_000;
/**
 * Long enough for the cluster to converge after the last fault: a client or follower whose request was
 * lost with a crashed or powered-off broker learns it only when the request times out (request.timeout.ms,
 * replica.socket.timeout.ms: 30 s), and judged before it retries, records above a stalled high watermark
 * would count as lost.
 */
export const DEFAULT_QUIET_MS = 45_000;
export const DEFAULT_SHRINK_RUNS = 200;

/** fast-check addresses runs as (seed, path); a block of this many runs shares one fast-check seed. */
const RUNS_PER_BLOCK = 1024;

export function propertyOptions(plan: ExplorePlan): PropertyOptions {
  return plan.withinMs === undefined ? {} : { withinMs: plan.withinMs };
}

/**
 * The generator of a sweep: scenario documents, each one the property's tailoring of a drawn scenario
 * with the user's --set overrides applied last, so what is run (and shrunk, and written) is exactly a
 * scenario file.
 */
export function exploreArbitrary(plan: ExplorePlan): fc.Arbitrary<ScenarioSpec> {
  const property = propertyByName(plan.property);
  const opts = propertyOptions(plan);
  const schedule = {
    budget: plan.budget,
    ...(plan.settleMs !== undefined && { settleMs: plan.settleMs }),
    ...(plan.maxFaults !== undefined && { maxFaults: plan.maxFaults }),
    ...(plan.maxFaultMs !== undefined && { maxFaultMs: plan.maxFaultMs }),
    ...(plan.kinds !== undefined && { kinds: plan.kinds }),
  };
  let drawn: fc.Arbitrary<ScenarioSpec>;
  if (plan.base) {
    const durationMs = plan.durationMs ?? msOf(plan.base.duration, DEFAULT_DURATION_MS);
    const base: ScenarioSpec = {
      // A shorter --duration leaves out what the base does later (its send times, stalls), as run --duration does.
      ...cutToDuration(plan.base, ms(durationMs)).spec,
      duration: durationMs,
      ...(plan.quietMs !== undefined && { quiet: plan.quietMs }),
      // The base's expectations and captions speak of its own schedule, which exploration replaces.
      expect: [],
      captions: [],
    };
    drawn = scenarioWithFaults(base, durationMs, schedule);
  } else {
    drawn = generatedScenario({ ...schedule, durationMs: plan.durationMs ?? DEFAULT_DURATION_MS, quietMs: plan.quietMs ?? DEFAULT_QUIET_MS });
  }
  return drawn.map((spec) => fitToOverrides(applyOverrides(property.tailor ? property.tailor(spec, opts) : spec, plan.sets, { requireTargets: false })));
}

/**
 * The overrides shape what is drawn: a drawn replication factor larger than an overridden broker count
 * (`--set cluster.brokers=2`) is cut to the brokers there are, rather than making the scenario invalid.
 */
function fitToOverrides(spec: ScenarioSpec): ScenarioSpec {
  const brokers = spec.cluster?.brokers;
  if (brokers === undefined || !spec.topics?.some((t) => (t.replicationFactor ?? 1) > brokers && t.assignment === undefined)) return spec;
  return { ...spec, topics: spec.topics.map((t) => ((t.replicationFactor ?? 1) > brokers && t.assignment === undefined ? { ...t, replicationFactor: brokers } : t)) };
}

/** The fast-check seed and path of run k: a pure function of (sweep seed, k). */
export function runAddress(seed: number | string, k: number): { fcSeed: number; path: string } {
  const block = Math.floor(k / RUNS_PER_BLOCK);
  const hex = new Fnv1a64().update(`${typeof seed}:${seed}/${block}`).hex();
  return { fcSeed: Number.parseInt(hex.slice(-8), 16) | 0, path: String(k % RUNS_PER_BLOCK) };
}

/** The scenario of run k. */
export function caseSpec(arb: fc.Arbitrary<ScenarioSpec>, seed: number | string, k: number): ScenarioSpec {
  const { fcSeed, path } = runAddress(seed, k);
  return fc.sample(arb, { seed: fcSeed, path, numRuns: 1 })[0]!;
}

/** Run indices of shard `index` (1-based) of `count` in a sweep of `runs`: every count-th run. */
export function shardRuns(runs: number, shard: { index: number; count: number } = { index: 1, count: 1 }): number[] {
  const out: number[] = [];
  for (let k = shard.index - 1; k < runs; k += shard.count) out.push(k);
  return out;
}

export function planProperty(plan: ExplorePlan): RunProperty {
  return propertyByName(plan.property);
}
