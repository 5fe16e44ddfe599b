import { shareGroupLimits, type ShareGroupLimits } from '../../../sim/kafka/share/shareGroupConfig';
import { validateScenario } from '../../../sim/scenario/validate';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import type { TraceModel } from './traceModel';
import { ShareReplay } from './shareState';

/** The share groups of a run: their limits (from the scenario the trace was made from) and the share-partitions at any moment. */
export interface ShareModel {
  readonly replay: ShareReplay;
  /** A group's limits, or null when the trace carries no scenario to read them from. */
  limitsOf(group: string): ShareGroupLimits | null;
}

/**
 * A group's limits as the brokers of this run apply them: its `share.*` group configs over the broker's
 * `group.share.*` defaults (the same rule the simulator's share-partitions use).
 */
export function shareLimitsOf(spec: ScenarioSpec | null): (group: string) => ShareGroupLimits | null {
  if (!spec) return () => null;
  let resolved: ReturnType<typeof validateScenario>;
  try {
    resolved = validateScenario(spec);
  } catch {
    return () => null;
  }
  const cache = new Map<string, ShareGroupLimits | null>();
  return (group) => {
    if (!cache.has(group)) {
      const l = shareGroupLimits(resolved.cluster.brokerConfig, resolved.groupConfigs[group] ?? {});
      cache.set(group, typeof l === 'string' ? null : l);
    }
    return cache.get(group)!;
  };
}

export function buildShare(model: TraceModel): ShareModel {
  const limitsOf = shareLimitsOf(model.spec);
  return { limitsOf, replay: new ShareReplay(model.events, (g) => limitsOf(g)?.recordLockDurationMs ?? null) };
}
