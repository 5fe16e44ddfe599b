/**
 * One partition of `__share_group_state` as the share coordinator keeps it: for each share-partition key
 * (group, topic id, partition) the last state written — start offset, leader epoch, state batches — rebuilt from
 * ShareSnapshot records (the whole state) and the ShareUpdate records after them (the batches that changed). A
 * write becomes a ShareSnapshot when the key has none yet or `share.coordinator.snapshot.update.records.per.snapshot`
 * updates followed the last one, else a ShareUpdate. A write or a read from an older leader epoch than the key's
 * is refused with FENCED_LEADER_EPOCH (a read from a newer leader raises the key's epoch). Pure: the service
 * appends the records and replays them once they are written.
 * [src: share-coordinator/src/main/java/org/apache/kafka/coordinator/share/ShareCoordinatorShard.java `writeState`,
 * `readStateAndMaybeUpdateLeaderEpoch`, `generateShareStateRecord`, `replay`, `handleShareSnapshot`, `handleShareUpdate`;
 * PersisterStateBatchCombiner.java]
 */
import type { KafkaError } from '../../errors';
import type { CoordinatorRecord } from '../../coordinator/storage';

/** A run of offsets with one state and one delivery count, as WriteShareGroupState carries it (state ids of RecordState). */
export interface StateBatch {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly deliveryState: number;
  readonly deliveryCount: number;
}

/** What a key holds. [ShareGroupOffset.java] */
export interface ShareGroupOffset {
  readonly snapshotEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: number;
  readonly stateBatches: readonly StateBatch[];
}

export interface WriteShareState {
  readonly groupId: string;
  readonly topicId: string;
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly startOffset: number;
  /** The batches that changed (a ShareUpdate merges them over what the key holds). */
  readonly stateBatches: readonly StateBatch[];
}

export type ShareRecordType = 'ShareSnapshot' | 'ShareUpdate';

/** The JSON value of a ShareSnapshot or ShareUpdate record. [ShareSnapshotValue.json, ShareUpdateValue.json] */
interface ShareRecordValue extends ShareGroupOffset {
  readonly type: ShareRecordType;
}

export const shareKey = (groupId: string, topicId: string, partition: number): string => `${groupId}:${topicId}:${partition}`;

/** The record key: its type and the share-partition key (ShareSnapshotKey, ShareUpdateKey). */
function recordKey(type: ShareRecordType, key: string): string {
  return `${type}\u0000${key}`;
}

/** Batches merged: a later batch wins over an earlier one where they overlap; nothing below `startOffset` is kept. [PersisterStateBatchCombiner.java `combineStateBatches`, `pruneBatches`] */
export function mergeBatches(base: readonly StateBatch[], update: readonly StateBatch[], startOffset: number): StateBatch[] {
  const byOffset = new Map<number, { s: number; c: number }>();
  for (const list of [base, update]) for (const b of list) for (let o = Math.max(b.firstOffset, startOffset); o <= b.lastOffset; o++) byOffset.set(o, { s: b.deliveryState, c: b.deliveryCount });
  const offsets = [...byOffset.keys()].sort((a, b) => a - b);
  const out: StateBatch[] = [];
  for (const o of offsets) {
    const v = byOffset.get(o)!;
    const last = out[out.length - 1];
    if (last && last.lastOffset === o - 1 && last.deliveryState === v.s && last.deliveryCount === v.c) out[out.length - 1] = { ...last, lastOffset: o };
    else out.push({ firstOffset: o, lastOffset: o, deliveryState: v.s, deliveryCount: v.c });
  }
  return out;
}

export class ShareCoordinatorShard {
  private readonly state = new Map<string, ShareGroupOffset>();
  /** ShareUpdates since the key's last ShareSnapshot. */
  private readonly updatesSinceSnapshot = new Map<string, number>();
  /** The highest leader epoch seen for each key (writes and reads of newer leaders). */
  private readonly leaderEpochs = new Map<string, number>();

  constructor(private readonly updatesPerSnapshot: number) {}

  /** The records of a write, or the error that refuses it. [ShareCoordinatorShard.java `writeState`, `generateShareStateRecord`] */
  write(w: WriteShareState): { readonly error: KafkaError; readonly records: readonly CoordinatorRecord[] } {
    const k = shareKey(w.groupId, w.topicId, w.partition);
    if (w.leaderEpoch < (this.leaderEpochs.get(k) ?? -1)) return { error: 'FENCED_LEADER_EPOCH', records: [] };
    const current = this.state.get(k);
    const startOffset = w.startOffset === -1 ? (current?.startOffset ?? 0) : w.startOffset;
    let value: ShareRecordValue;
    if (!current || (this.updatesSinceSnapshot.get(k) ?? 0) >= this.updatesPerSnapshot) {
      value = { type: 'ShareSnapshot', snapshotEpoch: current ? current.snapshotEpoch + 1 : 0, leaderEpoch: w.leaderEpoch, startOffset, stateBatches: mergeBatches(current?.stateBatches ?? [], w.stateBatches, startOffset) };
    } else {
      value = { type: 'ShareUpdate', snapshotEpoch: current.snapshotEpoch, leaderEpoch: w.leaderEpoch, startOffset, stateBatches: mergeBatches([], w.stateBatches, startOffset) };
    }
    return { error: 'NONE', records: [{ key: recordKey(value.type, k), value: JSON.stringify(value) }] };
  }

  /**
   * The key's state for a (new) leader at `leaderEpoch`, which becomes the key's epoch; null when nothing was
   * ever written. [ShareCoordinatorShard.java `readStateAndMaybeUpdateLeaderEpoch`]
   */
  read(groupId: string, topicId: string, partition: number, leaderEpoch: number): { readonly error: KafkaError; readonly state: ShareGroupOffset | null } {
    const k = shareKey(groupId, topicId, partition);
    if (leaderEpoch < (this.leaderEpochs.get(k) ?? -1)) return { error: 'FENCED_LEADER_EPOCH', state: null };
    this.leaderEpochs.set(k, leaderEpoch);
    return { error: 'NONE', state: this.state.get(k) ?? null };
  }

  /** Applies a record read back from the log, or just written. [ShareCoordinatorShard.java `replay`] */
  replay(r: CoordinatorRecord): void {
    const sep = r.key.indexOf('\u0000');
    if (sep < 0 || r.value === null) return;
    const k = r.key.slice(sep + 1);
    const v = JSON.parse(r.value) as ShareRecordValue;
    this.leaderEpochs.set(k, Math.max(this.leaderEpochs.get(k) ?? -1, v.leaderEpoch));
    if (v.type === 'ShareSnapshot') {
      this.state.set(k, { snapshotEpoch: v.snapshotEpoch, leaderEpoch: v.leaderEpoch, startOffset: v.startOffset, stateBatches: v.stateBatches });
      this.updatesSinceSnapshot.set(k, 0);
      return;
    }
    const current = this.state.get(k);
    // An update without its snapshot (or of an older snapshot epoch) is ignored. [ShareCoordinatorShard.java `handleShareUpdate`]
    if (!current || current.snapshotEpoch !== v.snapshotEpoch) return;
    this.state.set(k, { snapshotEpoch: current.snapshotEpoch, leaderEpoch: v.leaderEpoch, startOffset: v.startOffset, stateBatches: mergeBatches(current.stateBatches, v.stateBatches, v.startOffset) });
    this.updatesSinceSnapshot.set(k, (this.updatesSinceSnapshot.get(k) ?? 0) + 1);
  }

  /** Inspection. */
  keys(): number {
    return this.state.size;
  }
}
