import type { MetadataRecord } from '../../metadata/records';
import type { ElectionSource } from './partitionChangeBuilder';

/** A leader change the rules decided, with enough context for a trace event: who, why, from which set. */
export interface PartitionElection {
  readonly topicId: string;
  readonly topicName: string;
  readonly partitionId: number;
  readonly previousLeader: number;
  /** NO_LEADER (-1) when the partition went offline. */
  readonly newLeader: number;
  /** null when no replica could lead. */
  readonly source: ElectionSource | null;
  /** Why the controller looked at the partition, e.g. "handleBrokerFenced" (Kafka's context strings). */
  readonly reason: string;
}

/**
 * What a controller rule returns (Kafka's ControllerResult): the records to append, in order, and the
 * response to send once they are committed. Rules never change the image; the caller appends the records and
 * replays them. `elections` annotates the leader changes among the records.
 */
export interface ControllerResult<T> {
  readonly records: MetadataRecord[];
  readonly response: T;
  readonly elections: PartitionElection[];
}
