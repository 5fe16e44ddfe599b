import { PRODUCER_CONFIGS, TOPIC_CONFIGS } from '../../../sim/kafka/config/configs';
import type { ScenarioSpec } from '../../../sim/scenario/spec';

/**
 * The configs a reader can flip from the UI, as `--set` overrides (sim/scenario/overrides.ts), plus two
 * that are fields of the scenario rather than Kafka configs: the topics' replication factor and the trace
 * level (`trace=full` records every network message for the sequence diagram).
 */
export interface Toggle {
  readonly id: string;
  readonly label: string;
  /** The override key, e.g. producer.acks. */
  readonly key: string;
  /** Choices: the value written after `=`, and its label. '' = as the scenario says. */
  readonly choices: readonly { readonly value: string; readonly label: string }[];
  readonly help: string;
}

export const REPLICATION_FACTOR_KEY = 'topic.replicationFactor';
export const TRACE_KEY = 'trace';

export function toggles(maxBrokers: number): Toggle[] {
  const rf = Array.from({ length: Math.max(1, Math.min(5, maxBrokers)) }, (_, i) => ({ value: String(i + 1), label: String(i + 1) }));
  return [
    {
      id: 'acks',
      label: 'acks',
      key: 'producer.acks',
      choices: [
        { value: '0', label: '0' },
        { value: '1', label: '1' },
        { value: 'all', label: 'all' },
      ],
      help: 'When the producer hears "ok": 0 never waits, 1 waits for the leader, all waits for every in-sync replica.',
    },
    {
      id: 'minisr',
      label: 'min.insync.replicas',
      key: 'topic.min.insync.replicas',
      choices: [
        { value: '1', label: '1' },
        { value: '2', label: '2' },
        { value: '3', label: '3' },
      ],
      help: 'With acks=all, the leader refuses writes (NOT_ENOUGH_REPLICAS) while the ISR is smaller than this.',
    },
    {
      id: 'unclean',
      label: 'unclean.leader.election.enable',
      key: 'topic.unclean.leader.election.enable',
      choices: [
        { value: 'false', label: 'false' },
        { value: 'true', label: 'true' },
      ],
      help: 'Allow a replica outside the ISR to become leader when no in-sync replica is left (availability over data).',
    },
    {
      id: 'rf',
      label: 'replication factor',
      key: REPLICATION_FACTOR_KEY,
      choices: rf,
      help: 'How many copies of each partition the cluster keeps.',
    },
    {
      id: 'flush',
      label: 'flush.messages',
      key: 'topic.flush.messages',
      choices: [{ value: '1', label: '1 (fsync each write)' }],
      help: 'Kafka leaves flushing to the OS by default; flush.messages=1 fsyncs every append before it counts as written.',
    },
    {
      id: 'trace',
      label: 'trace',
      key: TRACE_KEY,
      choices: [{ value: 'full', label: 'full' }],
      help: 'trace=full records every network message, drawn as arrows on the timeline.',
    },
  ];
}

/** The value a set of overrides gives a key ('' when unset). */
export function valueOf(sets: readonly string[], key: string): string {
  let v = '';
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq > 0 && s.slice(0, eq) === key) v = s.slice(eq + 1);
  }
  return v;
}

/** Sets (or clears, with '') one key in a list of overrides, keeping the others in order. */
export function withValue(sets: readonly string[], key: string, value: string): string[] {
  const out = sets.filter((s) => s.slice(0, s.indexOf('=')) !== key);
  if (value !== '') out.push(`${key}=${value}`);
  return out;
}

/** What the scenario itself says for a toggle, for the "scenario default" label. */
export function scenarioValue(spec: ScenarioSpec, key: string): string {
  switch (key) {
    case 'producer.acks': {
      const v = spec.producers?.[0]?.config?.['acks'];
      return String(v ?? PRODUCER_CONFIGS.acks.default);
    }
    case 'topic.min.insync.replicas': {
      const v = spec.topics?.[0]?.config?.['min.insync.replicas'] ?? spec.cluster?.broker?.['min.insync.replicas'];
      return String(v ?? TOPIC_CONFIGS['min.insync.replicas'].default);
    }
    case 'topic.unclean.leader.election.enable': {
      const v = spec.topics?.[0]?.config?.['unclean.leader.election.enable'] ?? spec.cluster?.broker?.['unclean.leader.election.enable'];
      return String(v ?? TOPIC_CONFIGS['unclean.leader.election.enable'].default);
    }
    case REPLICATION_FACTOR_KEY:
      return String(spec.topics?.[0]?.replicationFactor ?? 1);
    case 'topic.flush.messages': {
      const v = spec.topics?.[0]?.config?.['flush.messages'];
      return v === undefined ? 'never (OS writeback)' : String(v);
    }
    case TRACE_KEY:
      return spec.trace ?? 'standard';
    default:
      return '';
  }
}

/**
 * Splits the UI-only keys off a list of overrides and applies them to the spec; the rest are Kafka
 * configs for applyOverrides.
 */
export function applyScenarioFields(spec: ScenarioSpec, sets: readonly string[]): { spec: ScenarioSpec; rest: string[] } {
  let out = spec;
  const rest: string[] = [];
  for (const s of sets) {
    const eq = s.indexOf('=');
    const key = eq > 0 ? s.slice(0, eq) : s;
    const value = eq > 0 ? s.slice(eq + 1) : '';
    if (key === REPLICATION_FACTOR_KEY) {
      const rf = Number(value);
      if (!Number.isInteger(rf) || rf < 1) throw new Error(`${s}: the replication factor is a whole number >= 1`);
      // An explicit assignment fixes the replica count; a new factor lets the controller place replicas.
      out = { ...out, topics: (out.topics ?? []).map(({ assignment: _a, ...t }) => ({ ...t, replicationFactor: rf })) };
    } else if (key === TRACE_KEY) {
      if (value !== 'full' && value !== 'standard' && value !== 'minimal') throw new Error(`${s}: trace is full, standard or minimal`);
      out = { ...out, trace: value };
    } else {
      rest.push(s);
    }
  }
  return { spec: out, rest };
}

/** Short words for a list of overrides: "acks=1, min.insync.replicas=2". */
export function describeSets(sets: readonly string[]): string {
  if (sets.length === 0) return 'as the scenario says';
  return sets.map((s) => s.replace(/^(producer|topic|broker|consumer)\./, '').replace('replicationFactor', 'replication factor')).join(', ');
}

/** The settings that matter, as a run's scenario has them (its trace header holds the overridden spec). */
export function effectiveSettings(spec: ScenarioSpec | null): string {
  if (!spec) return '';
  const flush = scenarioValue(spec, 'topic.flush.messages');
  return [
    `acks=${scenarioValue(spec, 'producer.acks')}`,
    `min.insync.replicas=${scenarioValue(spec, 'topic.min.insync.replicas')}`,
    `RF ${scenarioValue(spec, REPLICATION_FACTOR_KEY)}`,
    `unclean=${scenarioValue(spec, 'topic.unclean.leader.election.enable')}`,
    flush.startsWith('never') ? 'no fsync (OS writeback)' : `flush.messages=${flush}`,
  ].join(' · ');
}
