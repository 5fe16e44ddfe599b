import type { Handlers } from '../../core/trace';
import { numbersOfList } from '../../core/numberedText';
import { firstAtOrAfter, IntColumn, RowColumn } from './columns';
import type { TopicPartitions } from './ids';
import type { Sends } from './sends';
import type { CurrentNumbers, ValueIds } from './values';

/** Broker ids are below this (Kafka's are small integers; the packing below relies on it). */
const BROKERS = 4096;

// The words of a value's row.
const OFFSET = 0;
const EPOCH_BROKER = 1;
const TIME = 2;

/**
 * Where a leader first appended each value (replica.append with role leader): partition, offset, leader epoch,
 * broker and time, keyed by value id. The partition is kept only where it is not the send's own (a value
 * appended before its send was given a partition, or re-routed), since it almost always is.
 */
export class LeaderAppends {
  /** Per value one row: offset, leader epoch * 4096 + broker (both small; the row's chunk widens if not), time. */
  private readonly rows = new RowColumn(3, [-1, -1, -1]);
  private readonly brokerSide = new Map<number, number>();
  /** Values whose first leader append was in another partition than their send's. */
  private readonly tpSide = new Map<number, number>();

  constructor(
    private readonly values: ValueIds,
    private readonly numbers: CurrentNumbers,
    private readonly tps: TopicPartitions,
    private readonly sends: Sends,
  ) {
    // A send's partition can change after its append (it was sent before a partition was chosen): keep the
    // append's partition aside before it would read as the new one.
    sends.onTpChange((v, before) => {
      if (this.has(v) && !this.tpSide.has(v)) this.tpSide.set(v, before);
    });
  }

  readonly handlers: Handlers = {
    'replica.append': (e) => {
      if (e.role !== 'leader' || e.values === undefined) return;
      const values = e.values;
      const numbers = numbersOfList(this.numbers.value);
      let tp = -1;
      for (let i = 0; i < values.length; i++) {
        const value = values[i]!;
        if (value === null) continue;
        const v = this.values.idIn(numbers, i, value);
        if (this.has(v)) continue;
        if (tp < 0) tp = this.tps.id(e.topic, e.partition);
        this.rows.set(v, OFFSET, e.base + i);
        const small = e.broker >= 0 && e.broker < BROKERS;
        this.rows.set(v, EPOCH_BROKER, e.epoch * BROKERS + (small ? e.broker : 0));
        if (!small) this.brokerSide.set(v, e.broker);
        this.rows.set(v, TIME, e.t);
        if (this.sends.tp(v) !== tp) this.tpSide.set(v, tp);
      }
    },
  };

  has(v: number): boolean {
    return this.rows.get(v, OFFSET) >= 0;
  }

  /** The partition of its first leader append (call only when `has`). */
  tp(v: number): number {
    return this.tpSide.size === 0 ? this.sends.tp(v) : (this.tpSide.get(v) ?? this.sends.tp(v));
  }

  offset(v: number): number {
    return this.rows.get(v, OFFSET);
  }

  epoch(v: number): number {
    return Math.floor(this.rows.get(v, EPOCH_BROKER) / BROKERS);
  }

  t(v: number): number {
    return this.rows.get(v, TIME);
  }

  broker(v: number): number {
    const side = this.brokerSide.get(v);
    if (side !== undefined) return side;
    const x = this.rows.get(v, EPOCH_BROKER);
    return x - Math.floor(x / BROKERS) * BROKERS;
  }
}

/** One follower's copy of a batch, as a lost write's story reads it. */
export interface FollowerAppend {
  readonly seq: number;
  readonly t: number;
  readonly tp: number;
  readonly base: number;
  readonly last: number;
  readonly epoch: number;
  readonly broker: number;
}

/**
 * Followers' copies of batches (replica.append with role follower, in a detailed trace), in trace order, one
 * column per field: a lost write's story tells which replicas held the record.
 */
export class FollowerAppends {
  private readonly seqs = new IntColumn();
  private readonly times = new IntColumn();
  private readonly tpIds = new IntColumn();
  private readonly bases = new IntColumn();
  private readonly lasts = new IntColumn();
  private readonly epochs = new IntColumn();
  private readonly brokers = new IntColumn();
  count = 0;

  constructor(private readonly tps: TopicPartitions) {}

  readonly handlers: Handlers = {
    'replica.append': (e) => {
      if (e.role !== 'follower') return;
      const i = this.count++;
      this.seqs.set(i, e.seq);
      this.times.set(i, e.t);
      this.tpIds.set(i, this.tps.id(e.topic, e.partition));
      this.bases.set(i, e.base);
      this.lasts.set(i, e.last);
      this.epochs.set(i, e.epoch);
      this.brokers.set(i, e.broker);
    },
  };

  get(i: number): FollowerAppend {
    return { seq: this.seqs.get(i), t: this.times.get(i), tp: this.tpIds.get(i), base: this.bases.get(i), last: this.lasts.get(i), epoch: this.epochs.get(i), broker: this.brokers.get(i) };
  }

  /** The first traced at or after time `t`. */
  firstFrom(t: number): number {
    return firstAtOrAfter(this.times, this.count, t);
  }
}
