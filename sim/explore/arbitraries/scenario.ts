import fc from 'fast-check';
import type { ScenarioSpec } from '../../scenario/spec';
import type { Budget } from '../budget';
import { faultPalette } from '../palette';
import { clusterShape } from './clusterShape';
import { consumerGroup } from './consumerGroup';
import { faultSteps, materializeSchedule, type ScheduleWindow } from './faultSchedule';
import type { StepKind } from './faultStep';
import { producerConfig } from './producerConfig';
import { topicConfig } from './topicConfig';
import { workload } from './workload';

export interface ScheduleOptions {
  readonly budget: Budget;
  /** Scenario time in which faults start, ms (default: from 1 s to the scenario's duration). */
  readonly faultsFromMs?: number;
  /** Longest fault, ms (default 15 s). */
  readonly maxFaultMs?: number;
  /** one-at-a-time: pause after each fault, ms (default 10 s). */
  readonly settleMs?: number;
  /** Most faults in a schedule (default 6). */
  readonly maxFaults?: number;
  readonly kinds?: readonly StepKind[];
}

export const DEFAULT_SETTLE_MS = 10_000;

function window(durationMs: number, o: ScheduleOptions): ScheduleWindow {
  return {
    startMs: o.faultsFromMs ?? 1_000,
    endMs: durationMs,
    maxDurationMs: o.maxFaultMs ?? 15_000,
    settleMs: o.settleMs ?? DEFAULT_SETTLE_MS,
    maxFaults: o.maxFaults ?? 6,
    ...(o.kinds && { kinds: o.kinds }),
  };
}

/** The simulator's seed, drawn inside the value so fast-check's seed and path fix the whole run; never shrunk (no seed is simpler than another). */
export function simSeed(): fc.Arbitrary<number> {
  return fc.noShrink(fc.integer({ min: 1, max: 0x7fffffff }));
}

/**
 * A base scenario with a drawn fault schedule and seed: the cluster, topics and clients stay as the base
 * has them, its own faults are replaced. The schedule comes first in the value, so it shrinks first.
 */
export function scenarioWithFaults(base: ScenarioSpec, durationMs: number, o: ScheduleOptions): fc.Arbitrary<ScenarioSpec> {
  const palette = faultPalette(base);
  const w = window(durationMs, o);
  return fc.record({ steps: faultSteps(w, o.budget), seed: simSeed() }).map(({ steps, seed }) => ({
    ...base,
    seed,
    faults: materializeSchedule(steps, palette, o.budget, w),
  }));
}

export interface GeneratedScenarioOptions extends ScheduleOptions {
  readonly durationMs: number;
  readonly quietMs: number;
}

/**
 * A whole scenario drawn from scratch: the cluster's shape, one topic's configs, a producer's configs and
 * workload, a consumer group, and a fault schedule within the budget. Shrinking moves every setting toward
 * Kafka's durable defaults first (a few runs), then removes and simplifies faults, so what is left of a
 * counterexample is what it needs.
 */
export function generatedScenario(o: GeneratedScenarioOptions): fc.Arbitrary<ScenarioSpec> {
  const w = window(o.durationMs, o);
  const topic = 'events';
  return fc
    .record({
      // Settings first: each shrinks in a step or two toward Kafka's defaults; the schedule's many fields after.
      cluster: clusterShape(),
      topic: topicConfig(topic),
      producer: producerConfig(),
      workload: workload(topic),
      consumers: consumerGroup([topic]),
      steps: faultSteps(w, o.budget),
      seed: simSeed(),
    })
    .map(({ steps, cluster, topic: t, producer, workload: wl, consumers, seed }): ScenarioSpec => {
      const spec: ScenarioSpec = {
        id: 'explore',
        title: 'A generated scenario',
        seed,
        duration: o.durationMs,
        quiet: o.quietMs,
        cluster,
        topics: [t],
        producers: [{ id: 'producer-1', config: producer, workload: wl }],
        ...(consumers.length > 0 && { consumers }),
      };
      return { ...spec, faults: materializeSchedule(steps, faultPalette(spec), o.budget, w) };
    });
}
