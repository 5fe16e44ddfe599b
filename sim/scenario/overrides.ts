import { ValidationError, didYouMean } from '../core/validate';
import { BROKER_CONFIGS, CONSUMER_CONFIGS, GROUP_CONFIGS, PRODUCER_CONFIGS, SHARE_CONSUMER_CONFIGS, TOPIC_CONFIGS } from '../kafka/config/configs';
import { configDef, readConfig, type ConfigDefs } from '../kafka/config/def';
import type { ScenarioSpec } from './spec';

/** The scopes of `--set scope.name=value` whose names are Kafka configs (a Map: "toString" is no scope). */
const SCOPES: ReadonlyMap<string, ConfigDefs> = new Map<string, ConfigDefs>([
  ['producer', PRODUCER_CONFIGS],
  ['consumer', CONSUMER_CONFIGS],
  ['topic', TOPIC_CONFIGS],
  ['broker', BROKER_CONFIGS],
  ['group', GROUP_CONFIGS],
  ['share-consumer', SHARE_CONSUMER_CONFIGS],
]);

/** The scenario's list each client scope applies to. */
const SCOPE_LISTS = { producer: 'producers', consumer: 'consumers', topic: 'topics', 'share-consumer': 'shareConsumers' } as const;

export interface OverrideOptions {
  /**
   * Refuse a producer, consumer or topic override on a scenario that has none of them (default true: the
   * user named a scenario and a setting that cannot apply to it). Exploration draws scenarios with and without
   * consumers and applies the same overrides to each, so it passes false.
   */
  readonly requireTargets?: boolean;
}

/** The cluster's shape, settable as `cluster.<name>=<value>`. */
const CLUSTER_KEYS = ['brokers', 'controllers', 'eligibleLeaderReplicas', 'legacyHighWatermarkTruncation'] as const;

/**
 * Applies `--set scope.name=value` overrides to a scenario document. Kafka's own config names under a
 * scope (`producer.acks=1`, `topic.min.insync.replicas=2`, `broker.replica.lag.time.max.ms=10000`,
 * `consumer.group.protocol=consumer`, `group.consumer.session.timeout.ms=50000`) apply to every producer,
 * consumer, topic, broker or consumer group; `cluster.brokers=5` reshapes the cluster. Each mistake is a
 * one-line error naming the flag.
 */
export function applyOverrides(spec: ScenarioSpec, sets: readonly string[], opts: OverrideOptions = {}): ScenarioSpec {
  let out: ScenarioSpec = spec;
  for (const set of sets) {
    const eq = set.indexOf('=');
    if (eq <= 0) throw new ValidationError(`--set ${set}`, set, 'scope.name=value, e.g. producer.acks=1');
    const key = set.slice(0, eq).trim();
    const value = set.slice(eq + 1).trim();
    const dot = key.indexOf('.');
    const scope = dot < 0 ? key : key.slice(0, dot);
    const name = dot < 0 ? '' : key.slice(dot + 1);
    const path = `--set ${key}`;
    if (scope === 'cluster') {
      if (!(CLUSTER_KEYS as readonly string[]).includes(name)) {
        const near = didYouMean(name, CLUSTER_KEYS);
        throw new ValidationError(path, name, `one of cluster.${CLUSTER_KEYS.join(', cluster.')}`, near ? `did you mean "cluster.${near}"?` : undefined);
      }
      let v: number | boolean;
      if (name === 'brokers' || name === 'controllers') {
        v = Number(value);
        if (!/^\d+$/.test(value) || v < 1 || v > (name === 'brokers' ? 100 : 9)) {
          throw new ValidationError(path, value, name === 'brokers' ? 'an integer from 1 to 100' : 'an integer from 1 to 9');
        }
      } else {
        if (value !== 'true' && value !== 'false') throw new ValidationError(path, value, 'true or false');
        v = value === 'true';
      }
      out = { ...out, cluster: { ...out.cluster, [name]: v } };
      continue;
    }
    const defs = SCOPES.get(scope);
    if (!defs) {
      const near = didYouMean(scope, [...SCOPES.keys(), 'cluster']);
      throw new ValidationError(path, scope, 'a scope: producer, consumer, topic, broker, group or cluster, or share-consumer', near ? `did you mean "${near}"?` : undefined);
    }
    if (!name) throw new ValidationError(path, key, `${scope}.<config name>=value`);
    // topic.<topic>.<config> sets one topic's config; topic.<config> every topic's.
    const one = scope === 'topic' ? oneTopic(out, name, path) : null;
    const config = one === null ? name : name.slice(one.length + 1);
    // Checks the name and the value now, so the error names the flag rather than a scenario field.
    const parsed = readConfig(defs, config, value, path);
    const stored = Array.isArray(parsed) ? parsed.join(',') : parsed;
    if (scope === 'group' && opts.requireTargets !== false) {
      if (!(out.consumers ?? []).some((c) => c.group !== undefined)) throw new ValidationError(path, `${name}=${value}`, 'an override for something the scenario has: it declares no consumer groups');
    } else if (scope !== 'broker' && opts.requireTargets !== false) {
      const list = SCOPE_LISTS[scope as keyof typeof SCOPE_LISTS];
      if ((out[list] ?? []).length === 0) throw new ValidationError(path, `${config}=${value}`, `an override for something the scenario has: it declares no ${list}`);
    }
    switch (scope) {
      case 'producer':
        out = { ...out, producers: (out.producers ?? []).map((p) => ({ ...p, config: { ...p.config, [name]: stored } })) };
        break;
      case 'consumer':
        out = { ...out, consumers: (out.consumers ?? []).map((c) => ({ ...c, config: { ...c.config, [name]: stored } })) };
        break;
      case 'share-consumer':
        out = { ...out, shareConsumers: (out.shareConsumers ?? []).map((c) => ({ ...c, config: { ...c.config, [name]: stored } })) };
        break;
      case 'topic':
        out = { ...out, topics: (out.topics ?? []).map((t) => (one === null || t.name === one ? { ...t, config: { ...t.config, [config]: stored } } : t)) };
        break;
      case 'broker':
        out = { ...out, cluster: { ...out.cluster, broker: { ...out.cluster?.broker, [name]: stored } } };
        break;
      case 'group': {
        // Every consumer group of the scenario gets the group config.
        const ids = [...new Set((out.consumers ?? []).flatMap((c) => (c.group === undefined ? [] : [c.group])))];
        const existing = out.groups ?? [];
        const groups = ids.map((id) => {
          const g = existing.find((x) => x.id === id);
          return { id, config: { ...g?.config, [name]: stored } };
        });
        out = { ...out, groups: [...groups, ...existing.filter((g) => !ids.includes(g.id))] };
        break;
      }
    }
  }
  return out;
}

/**
 * The topic a `topic.<topic>.<config>` override names (the longest topic of the scenario it starts with, preferring
 * one followed by a known topic config), or null for `topic.<config>`. A known config after a name the scenario has no topic
 * for is an unknown topic: refused with the nearest topic name (topic names may hold dots, configs too).
 */
function oneTopic(spec: ScenarioSpec, name: string, path: string): string | null {
  if (configDef(TOPIC_CONFIGS, name)) return null;
  const topics = (spec.topics ?? []).map((t) => t.name);
  let best: string | null = null;
  // A topic of the scenario followed by a dot: its config (readConfig then refuses an unknown one by its nearest name).
  const known = (t: string) => configDef(TOPIC_CONFIGS, name.slice(t.length + 1)) !== undefined;
  for (const t of topics) {
    if (!name.startsWith(`${t}.`) || best === t) continue;
    if (best === null || (known(t) && !known(best)) || (known(t) === known(best) && t.length > best.length)) best = t;
  }
  if (best !== null) return best;
  for (let i = name.indexOf('.'); i > 0; i = name.indexOf('.', i + 1)) {
    if (!configDef(TOPIC_CONFIGS, name.slice(i + 1))) continue;
    const topic = name.slice(0, i);
    const near = didYouMean(topic, topics);
    const allowed = topics.length === 0 ? 'a topic of the scenario: it declares none' : `a topic of the scenario (${topics.join(', ')})`;
    throw new ValidationError(path, topic, allowed, near ? `no topic ${JSON.stringify(topic)}; did you mean "topic.${near}.${name.slice(i + 1)}"?` : `no topic ${JSON.stringify(topic)}`);
  }
  return null;
}
