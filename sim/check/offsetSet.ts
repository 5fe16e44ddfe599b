import { tpKey } from '../kafka/protocol';

/**
 * A set of (topic, partition, offset) positions, keyed by partition then offset, so the checkers can
 * record every record a group read without building a string per record.
 */
export class OffsetSet {
  private readonly byPartition = new Map<string, Map<number, true>>();
  private count = 0;

  /** Adds the position; true when it was not there yet. */
  add(topic: string, partition: number, offset: number): boolean {
    const key = tpKey(topic, partition);
    let m = this.byPartition.get(key);
    if (m === undefined) this.byPartition.set(key, (m = new Map()));
    if (m.has(offset)) return false;
    m.set(offset, true);
    this.count++;
    return true;
  }

  has(topic: string, partition: number, offset: number): boolean {
    return this.byPartition.get(tpKey(topic, partition))?.has(offset) ?? false;
  }

  get size(): number {
    return this.count;
  }
}
