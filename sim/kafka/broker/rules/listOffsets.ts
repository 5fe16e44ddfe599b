import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '../../protocol';

export interface ListOffsetsInput {
  /** EARLIEST_TIMESTAMP, LATEST_TIMESTAMP or a record timestamp (ms). */
  readonly timestamp: number;
  readonly logStartOffset: number;
  /** The high watermark. */
  readonly highWatermark: number;
  /**
   * The end a client of this isolation level may fetch to: the HW for read_uncommitted, the last stable offset
   * for read_committed (default: the HW). [src: Partition.scala `fetchOffsetForTimestamp` (lastFetchableOffset)]
   */
  readonly lastFetchableOffset?: number;
  readonly leaderEpoch: number;
  /** The log end offset when this replica became leader of its current epoch. */
  readonly leaderEpochStartOffset: number;
  /** The first record at or after a timestamp, or null (only asked for a timestamp lookup). */
  readonly findByTimestamp: (timestampMs: number) => { offset: number; leaderEpoch: number } | null;
}

export type ListOffsetsAnswer =
  | { readonly error: 'NONE'; readonly offset: number; readonly leaderEpoch: number }
  | { readonly error: 'OFFSET_NOT_AVAILABLE'; readonly offset: -1; readonly leaderEpoch: -1 };

const NOT_AVAILABLE = { error: 'OFFSET_NOT_AVAILABLE', offset: -1, leaderEpoch: -1 } as const;

/**
 * A leader's answer to one ListOffsets partition from a client
 * [core/src/main/scala/kafka/cluster/Partition.scala `fetchOffsetForTimestamp`; ReplicaManager `fetchOffset`].
 *
 * Earliest is the log start; latest is the high watermark; a timestamp is the first record at or after it below
 * the high watermark, or -1 when there is none. A new leader whose high watermark still lags the start offset of
 * its epoch does not yet know what the old leader committed: latest, and a timestamp whose record is at or past
 * the high watermark, answer OFFSET_NOT_AVAILABLE (retriable) until the high watermark catches up, instead of an
 * end that is behind the committed one (a consumer resetting to latest would then read records again).
 */
export function listOffsetsAnswer(i: ListOffsetsInput): ListOffsetsAnswer {
  const lagging = i.leaderEpochStartOffset > i.highWatermark;
  const end = i.lastFetchableOffset ?? i.highWatermark;
  if (i.timestamp === EARLIEST_TIMESTAMP) return { error: 'NONE', offset: i.logStartOffset, leaderEpoch: i.leaderEpoch };
  if (i.timestamp === LATEST_TIMESTAMP) return lagging ? NOT_AVAILABLE : { error: 'NONE', offset: end, leaderEpoch: i.leaderEpoch };
  const found = i.findByTimestamp(i.timestamp);
  if (found !== null && found.offset >= end && lagging) return NOT_AVAILABLE;
  if (found === null || found.offset >= end) return { error: 'NONE', offset: -1, leaderEpoch: i.leaderEpoch };
  return { error: 'NONE', offset: found.offset, leaderEpoch: found.leaderEpoch };
}
