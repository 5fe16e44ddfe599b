import type { TargetResolver } from '../world/nemesis';

/** The selectors a scenario's faults may use: hosts, zones, racks, tags, and Kafka-level ones (resolved when a fault fires). */
export const KAFKA_SELECTOR_PREFIXES = ['leader:', 'follower:', 'controller:', 'broker:', 'coordinator:'] as const;

/** What a scenario will have, for telling a selector that can match from one that never will. */
export interface ScenarioHosts {
  readonly hostIds: readonly string[];
  /** Zones of the brokers, the controllers (placed in the brokers' zones) and the clients. */
  readonly zones: readonly string[];
  /** Racks of the brokers ("rack-0" without racks) and of the controllers ("controller-rack-<zone>"). */
  readonly racks: readonly string[];
  /** Tags hosts carry (broker, controller, client, producer, consumer, operator). */
  readonly tags: readonly string[];
  readonly brokers: number;
  /** Every topic a partition selector may name: partitions (the most it will have, actions counted) and replicas. */
  readonly topics: ReadonlyMap<string, { readonly partitions: number; readonly replicationFactor: number }>;
  /** The consumer groups some consumer joins (a group coordinator exists for them). */
  readonly groups: readonly string[];
}

const list = (xs: readonly string[]) => [...new Set(xs)].join(', ');

/**
 * Why `sel` can never match in this scenario (what is allowed instead), or undefined when it can. Only what
 * holds for the whole run is refused: a leader that moves, a follower that leaves the ISR, a controller that
 * loses its election may still make a selector match nothing at one moment, and that is the run's business.
 * [the runtime meaning: world.ts (zone:, rack:, tag:) and kafka/cluster.ts `resolver` (leader:, follower:, ...)]
 */
export function refuseSelector(sel: string, h: ScenarioHosts): string | undefined {
  const colon = sel.indexOf(':');
  const prefix = sel.slice(0, colon + 1);
  const rest = sel.slice(colon + 1);
  switch (prefix) {
    case 'zone:':
      return h.zones.includes(rest) ? undefined : `a zone of this scenario (${list(h.zones)})`;
    case 'rack:':
      return h.racks.includes(rest) ? undefined : `a rack of this scenario (${list(h.racks)})`;
    case 'tag:':
      return h.tags.includes(rest) ? undefined : `a tag hosts have (${[...new Set(h.tags)].sort().join(', ')})`;
    case 'broker:': {
      const n = Number(rest);
      return /^\d+$/.test(rest) && n >= 1 && n <= h.brokers ? undefined : `a broker id of this scenario (1 to ${h.brokers}), e.g. "broker:1"`;
    }
    case 'coordinator:':
      // Any group id hashes to a partition of __consumer_offsets, but that topic exists only once a consumer joins a group.
      return h.groups.includes(rest) ? undefined : h.groups.length > 0 ? `a group a consumer of this scenario joins (${list(h.groups)})` : 'a group a consumer joins (this scenario has no consumer in a group)';
    case 'controller:':
      return rest === 'active' ? undefined : '"controller:active" (the only controller selector)';
    case 'leader:':
    case 'follower:': {
      const m = /^(.+?)[/-](\d+)(?:#(\d+))?$/.exec(rest);
      if (!m) return `"${prefix}<topic>/<partition>", e.g. "${prefix}orders/0"`;
      const topic = h.topics.get(m[1]!);
      const partition = Number(m[2]);
      if (!topic) return `a topic of this scenario (${[...h.topics.keys()].filter((t) => !t.startsWith('__')).join(', ') || 'none declared'}) and one of its partitions`;
      if (partition >= topic.partitions) return `partition ${partition} of "${m[1]}", which has ${topic.partitions} (0 to ${topic.partitions - 1})`;
      if (m[3] === undefined) return undefined;
      if (prefix === 'leader:') return `"leader:${m[1]}/${partition}" (a partition has one leader; #k counts followers)`;
      const k = Number(m[3]);
      if (k < 1) return `"follower:${m[1]}/${partition}#1" or later: followers count from #1`;
      const followers = topic.replicationFactor - 1;
      return k <= followers ? undefined : `follower #${k} of a partition with ${followers} follower${followers === 1 ? '' : 's'} (replication factor ${topic.replicationFactor}), or none for every follower`;
    }
    default:
      return undefined;
  }
}

/** The validator's resolver: knows every host and what each selector can mean, resolves nothing (the run does). */
export function scenarioResolver(h: ScenarioHosts): TargetResolver {
  return {
    prefixes: ['zone:', 'rack:', 'tag:', ...KAFKA_SELECTOR_PREFIXES],
    hostIds: h.hostIds,
    resolve: () => null,
    refuse: (sel) => refuseSelector(sel, h),
  };
}
