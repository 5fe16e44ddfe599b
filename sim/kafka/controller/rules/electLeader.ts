import type { KafkaError } from '../../errors';
import type { MetadataView } from '../../metadata/metadataImage';
import { hasLeader, hasPreferredLeader } from '../../metadata/partitionRegistration';
import type { ControllerResult } from './controllerResult';
import { buildPartitionChange } from './partitionChangeBuilder';

/** Kafka's ElectionType of the ElectLeaders API. */
export type ElectionType = 'PREFERRED' | 'UNCLEAN';

/**
 * Elects a leader for one partition on request (ElectLeaders) or for the periodic tasks:
 * ELECTION_NOT_NEEDED when the preferred replica already leads (PREFERRED) or a leader exists (UNCLEAN);
 * PREFERRED_LEADER_NOT_AVAILABLE / ELIGIBLE_LEADERS_NOT_AVAILABLE when the election changes nothing.
 * An UNCLEAN election here does not consult unclean.leader.election.enable: the caller decides.
 * [metadata/.../controller/ReplicationControlManager.java `electLeader`]
 */
export function electLeader(
  image: MetadataView,
  topicName: string,
  partitionId: number,
  electionType: ElectionType,
  reason = 'electLeaders',
): ControllerResult<KafkaError> {
  const topic = image.topicByName(topicName);
  const partition = topic?.partitions[partitionId];
  if (!topic || !partition) return { records: [], response: 'UNKNOWN_TOPIC_OR_PARTITION', elections: [] };
  if ((electionType === 'PREFERRED' && hasPreferredLeader(partition)) || (electionType === 'UNCLEAN' && hasLeader(partition))) {
    return { records: [], response: 'ELECTION_NOT_NEEDED', elections: [] };
  }
  const change = buildPartitionChange({
    topicId: topic.topicId,
    partitionId,
    partition,
    isAcceptableLeader: (r) => image.isActive(r),
    minIsr: image.effectiveMinIsr(topicName),
    elrEnabled: image.elrEnabled(),
    election: electionType,
  });
  if (!change.record) {
    return { records: [], response: electionType === 'PREFERRED' ? 'PREFERRED_LEADER_NOT_AVAILABLE' : 'ELIGIBLE_LEADERS_NOT_AVAILABLE', elections: [] };
  }
  const elections = change.leaderChange ? [{ topicId: topic.topicId, topicName, partitionId, ...change.leaderChange, reason }] : [];
  return { records: [change.record], response: 'NONE', elections };
}

/** One partition's answer to ElectLeaders. */
export interface ElectionOutcome {
  readonly topic: string;
  readonly partition: number;
  readonly error: KafkaError;
}

/**
 * ElectLeaders (kafka-leader-election): the given partitions, or with `partitions` null every partition of every
 * topic, where then the ones already led as wanted (ELECTION_NOT_NEEDED) are left out of the answer. Topics in
 * creation order (Kafka walks a hash map here; we keep a total order).
 * [metadata/.../controller/ReplicationControlManager.java `electLeaders`]
 */
export function electLeaders(
  image: MetadataView,
  electionType: ElectionType,
  partitions: readonly { readonly topic: string; readonly partition: number }[] | null,
): ControllerResult<ElectionOutcome[]> {
  const result: ControllerResult<ElectionOutcome[]> = { records: [], response: [], elections: [] };
  const one = (topic: string, partition: number, all: boolean) => {
    const r = electLeader(image, topic, partition, electionType, 'electLeaders');
    result.records.push(...r.records);
    result.elections.push(...r.elections);
    if (!all || r.response !== 'ELECTION_NOT_NEEDED') result.response.push({ topic, partition, error: r.response });
  };
  if (partitions === null) {
    for (const t of image.topics()) for (let p = 0; p < t.partitions.length; p++) one(t.name, p, true);
  } else {
    for (const tp of partitions) one(tp.topic, tp.partition, false);
  }
  return result;
}
