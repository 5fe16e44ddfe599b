/** What the trace says about one produced value. */
export interface ValueInfo {
  readonly value: string;
  readonly key: string | null;
  readonly producer: string;
  readonly topic: string;
  readonly partition: number;
  readonly invokeT: number;
  readonly invokeI: number;
  /** The leader's append (offset, epoch, broker), or -1. */
  readonly offset: number;
  readonly epoch: number;
  readonly broker: number;
  readonly appendT: number;
  readonly appendI: number;
  readonly ackT: number;
  readonly ackI: number;
  readonly acks: string;
  readonly failT: number;
  readonly error: string;
  /** The first time a consumer read it (-1: never), and who. */
  readonly readT: number;
  readonly readI: number;
  readonly reader: string;
}

/**
 * Every produced value's history, as columns indexed by a value id (a large run has a hundred thousand
 * values: columns keep indexing to one allocation per value, the id, instead of one object each).
 */
export class ValueTable {
  private readonly ids = new Map<string, number>();
  readonly value: string[] = [];
  readonly key: (string | null)[] = [];
  readonly producer: string[] = [];
  readonly topic: string[] = [];
  readonly partition: number[] = [];
  readonly invokeT: number[] = [];
  readonly invokeI: number[] = [];
  readonly offset: number[] = [];
  readonly epoch: number[] = [];
  readonly broker: number[] = [];
  readonly appendT: number[] = [];
  readonly appendI: number[] = [];
  readonly ackT: number[] = [];
  readonly ackI: number[] = [];
  readonly acks: string[] = [];
  readonly failT: number[] = [];
  readonly error: string[] = [];
  readonly readT: number[] = [];
  readonly readI: number[] = [];
  readonly reader: string[] = [];

  get size(): number {
    return this.value.length;
  }

  /** The id of a value, added when new. */
  id(v: string): number {
    let id = this.ids.get(v);
    if (id === undefined) {
      id = this.value.length;
      this.ids.set(v, id);
      this.value.push(v);
      this.key.push(null);
      this.producer.push('');
      this.topic.push('');
      this.partition.push(-1);
      this.invokeT.push(-1);
      this.invokeI.push(-1);
      this.offset.push(-1);
      this.epoch.push(-1);
      this.broker.push(-1);
      this.appendT.push(-1);
      this.appendI.push(-1);
      this.ackT.push(-1);
      this.ackI.push(-1);
      this.acks.push('');
      this.failT.push(-1);
      this.error.push('');
      this.readT.push(-1);
      this.readI.push(-1);
      this.reader.push('');
    }
    return id;
  }

  has(v: string): boolean {
    return this.ids.has(v);
  }

  /** A value's history as one object (made on demand, for the few a view shows). */
  get(v: string): ValueInfo | undefined {
    const i = this.ids.get(v);
    if (i === undefined) return undefined;
    return {
      value: v,
      key: this.key[i]!,
      producer: this.producer[i]!,
      topic: this.topic[i]!,
      partition: this.partition[i]!,
      invokeT: this.invokeT[i]!,
      invokeI: this.invokeI[i]!,
      offset: this.offset[i]!,
      epoch: this.epoch[i]!,
      broker: this.broker[i]!,
      appendT: this.appendT[i]!,
      appendI: this.appendI[i]!,
      ackT: this.ackT[i]!,
      ackI: this.ackI[i]!,
      acks: this.acks[i]!,
      failT: this.failT[i]!,
      error: this.error[i]!,
      readT: this.readT[i]!,
      readI: this.readI[i]!,
      reader: this.reader[i]!,
    };
  }

  /** When a value was acknowledged (-1: never), without building its object. */
  ackTime(v: string): number {
    const i = this.ids.get(v);
    return i === undefined ? -1 : this.ackT[i]!;
  }
}
