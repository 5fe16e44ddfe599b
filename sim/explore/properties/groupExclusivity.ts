import type { ConsumerSpec, ScenarioSpec } from '../../scenario/spec';
import { checkProperty } from './property';

/** Two consumers for every topic, in one group, unless the scenario already has a group. */
function withGroup(spec: ScenarioSpec): ScenarioSpec {
  const consumers = spec.consumers ?? [];
  if (consumers.some((c) => c.group !== undefined)) return spec;
  const topics = (spec.topics ?? []).map((t) => t.name);
  if (topics.length === 0) return spec;
  const members: ConsumerSpec[] = ['explore-consumer-1', 'explore-consumer-2'].map((id) => ({ id, group: 'explore-group', topics }));
  return { ...spec, consumers: [...consumers, ...members] };
}

/** No partition is owned by two live members of one group at once (the checkers' group-overlap). */
export const groupExclusivity = checkProperty(
  'group-exclusivity',
  'group-overlap',
  'no partition is owned by two members of one consumer group at the same time',
  withGroup,
);
