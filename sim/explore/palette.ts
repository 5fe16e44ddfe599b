import type { ScenarioSpec } from '../scenario/spec';

/**
 * The fault targets a schedule may name for one scenario, as selectors resolved when the fault fires:
 * `single` hit one host (the current leader of a partition, a broker, the active controller, one
 * controller host), `several` hit more than one (every in-sync follower, the whole ISR, every broker).
 * The leader of the first partition comes first: shrinking moves toward it.
 */
export interface FaultPalette {
  readonly single: readonly string[];
  readonly several: readonly (readonly string[])[];
}

/** Partitions named by the palette, per topic (the first few: faults on partition 7 of 12 add nothing new). */
const PARTITIONS_PER_TOPIC = 2;

export function faultPalette(spec: ScenarioSpec): FaultPalette {
  const brokers = spec.cluster?.brokers ?? 3;
  const controllers = spec.cluster?.controllers ?? 3;
  const leaders: string[] = [];
  const followers: string[] = [];
  for (const t of spec.topics ?? []) {
    const n = Math.min(t.partitions ?? 1, PARTITIONS_PER_TOPIC);
    for (let p = 0; p < n; p++) {
      leaders.push(`leader:${t.name}/${p}`);
      followers.push(`follower:${t.name}/${p}`);
    }
  }
  const single = [
    ...leaders,
    ...Array.from({ length: brokers }, (_, i) => `broker:${i + 1}`),
    'controller:active',
    ...Array.from({ length: controllers }, (_, i) => `controller-${i + 1}`),
  ];
  const several: string[][] = [];
  // Every in-sync follower, then the whole ISR (leader and followers: the correlated failure), then every broker.
  followers.forEach((f, i) => several.push([f], [leaders[i]!, f]));
  several.push(['tag:broker']);
  return { single, several };
}

/** The sides a host can be cut from: the rest of the cluster (clients still reach it), the controllers only, the other brokers only. */
export const CUT_SIDES: readonly (readonly string[])[] = [['tag:broker', 'tag:controller'], ['tag:controller'], ['tag:broker']];
