/**
 * Offsets committed inside a transaction (TxnOffsetCommit), kept aside per producer until the transaction ends:
 * a COMMIT marker on the partition makes them the group's committed offsets, an ABORT marker drops them. While
 * any are pending for a partition, an OffsetFetch that requires stable offsets is answered UNSTABLE_OFFSET_COMMIT
 * (KIP-447). [src: group-coordinator/.../OffsetMetadataManager.java `pendingTransactionalOffsets`,
 * `replayEndTransactionMarker`, `hasPendingTransactionalOffsets`]
 */
import { tpKey } from '../protocol';
import type { CommittedOffset } from './groupCoordinatorRecords';

export class PendingTransactionalOffsets {
  /** producer id -> group -> "topic-partition" -> offset. */
  private readonly byProducer = new Map<number, Map<string, Map<string, CommittedOffset>>>();

  get isEmpty(): boolean {
    return this.byProducer.size === 0;
  }

  /** A TxnOffsetCommit of `producerId` was written: its offsets wait for the transaction's marker. */
  add(producerId: number, groupId: string, offsets: readonly CommittedOffset[]): void {
    let groups = this.byProducer.get(producerId);
    if (!groups) this.byProducer.set(producerId, (groups = new Map()));
    let m = groups.get(groupId);
    if (!m) groups.set(groupId, (m = new Map()));
    for (const o of offsets) m.set(tpKey(o.topic, o.partition), o);
  }

  /** Some open transaction holds an offset of the group's partition. */
  hasPending(groupId: string, topic: string, partition: number): boolean {
    if (this.byProducer.size === 0) return false;
    const key = tpKey(topic, partition);
    for (const groups of this.byProducer.values()) if (groups.get(groupId)?.has(key)) return true;
    return false;
  }

  /**
   * The producer's transaction ended with a marker: on COMMIT its offsets, by group, to make committed; on
   * ABORT nothing. Either way they are no longer pending.
   */
  complete(producerId: number, commit: boolean): ReadonlyMap<string, ReadonlyMap<string, CommittedOffset>> {
    const groups = this.byProducer.get(producerId);
    this.byProducer.delete(producerId);
    return commit && groups ? groups : new Map();
  }

  clear(): void {
    this.byProducer.clear();
  }
}
