import { tpKey } from '../../kafka/protocol';

/** Dense numeric ids for a small set of names (producers, consumers, topics, groups, keys, error names). */
export class Names {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  /** The last name looked up (events of one node or topic come in runs). */
  private lastName = '';
  private lastId = -1;

  id(name: string): number {
    if (name === this.lastName && this.lastId >= 0) return this.lastId;
    let i = this.ids.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.ids.set(name, i);
      this.names.push(name);
    }
    this.lastName = name;
    this.lastId = i;
    return i;
  }

  /** The id of a name already seen, or -1. */
  find(name: string): number {
    return this.ids.get(name) ?? -1;
  }

  name(id: number): string {
    return this.names[id]!;
  }

  get size(): number {
    return this.names.length;
  }
}

/**
 * Numeric ids for partitions ("tp"): one per (topic, partition), and one per topic for records whose
 * partition is not known yet (partition -1), so a record's place is one number.
 */
export class TopicPartitions {
  readonly topics = new Names();
  /** Per topic id: tp ids by partition (index 0 is partition -1). */
  private readonly byTopic: number[][] = [];
  private readonly topicOf: number[] = [];
  private readonly partitionOf: number[] = [];
  private readonly keys: string[] = [];
  /** The last partition looked up (every handler of one event asks for the same one). */
  private lastTopic = '';
  private lastPartition = -2;
  private lastTp = -1;

  id(topic: string, partition: number): number {
    if (partition === this.lastPartition && topic === this.lastTopic) return this.lastTp;
    const tp = this.idOf(this.topics.id(topic), partition);
    this.lastTopic = topic;
    this.lastPartition = partition;
    this.lastTp = tp;
    return tp;
  }

  /** The tp of a topic id and a partition. */
  idOf(topicId: number, partition: number): number {
    let row = this.byTopic[topicId];
    if (row === undefined) this.byTopic[topicId] = row = [];
    const slot = partition + 1;
    let id = row[slot];
    if (id === undefined) {
      id = this.topicOf.length;
      row[slot] = id;
      this.topicOf.push(topicId);
      this.partitionOf.push(partition);
      this.keys.push(tpKey(this.topics.name(topicId), partition));
    }
    return id;
  }

  /** The tp already known for (topic, partition), or -1. */
  find(topic: string, partition: number): number {
    const t = this.topics.find(topic);
    return t < 0 ? -1 : (this.byTopic[t]?.[partition + 1] ?? -1);
  }

  topic(tp: number): number {
    return this.topicOf[tp]!;
  }

  topicName(tp: number): string {
    return this.topics.name(this.topicOf[tp]!);
  }

  partition(tp: number): number {
    return this.partitionOf[tp]!;
  }

  /** "topic-partition", as Kafka's tools print a partition. */
  key(tp: number): string {
    return this.keys[tp]!;
  }

  /** The same topic, another partition. */
  withPartition(tp: number, partition: number): number {
    return this.idOf(this.topicOf[tp]!, partition);
  }

  get size(): number {
    return this.topicOf.length;
  }
}
