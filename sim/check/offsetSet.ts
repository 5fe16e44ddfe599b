import { tpKey } from '../kafka/protocol';

/**
 * A set of (topic, partition, offset) positions, keyed by partition then offset, so the checkers can
 * record every record a group read without building a string per record.
 */
export class OffsetSet {
  private readonly byPartition = new Map<string, Set<number>>();

  /** Adds the position; true when it was not there yet. */
  add(topic: string, partition: number, offset: number): boolean {
    const key = tpKey(topic, partition);
    let s = this.byPartition.get(key);
    if (s === undefined) this.byPartition.set(key, (s = new Set()));
    if (s.has(offset)) return false;
    s.add(offset);
    return true;
  }

  has(topic: string, partition: number, offset: number): boolean {
    return this.byPartition.get(tpKey(topic, partition))?.has(offset) ?? false;
  }
}
