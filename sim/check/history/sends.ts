import type { Handlers } from '../../core/trace';
import { numberOf, numbersOf } from '../../core/numberedText';
import { IntColumn, SmallColumn } from './columns';
import type { Names, TopicPartitions } from './ids';
import type { ValueIds } from './values';

/** A send's outcome, as the producer application learns it. */
export const Status = {
  /** No send.invoke for this value (read or appended, never sent by a traced producer). */
  None: 0,
  /** Sent, no answer yet (or never: the run ended first). */
  Unknown: 1,
  Ok: 2,
  Fail: 3,
} as const;
export type Status = (typeof Status)[keyof typeof Status];

// Bits of a value's flags (history.ts; the reads use the others).
const STATUS = 0b11;
const DEFINITE = 0b100;
const ACKS_SHIFT = 3;
const ACKS = 0b11 << ACKS_SHIFT;
/** The bits a new send starts over (the reads' bits stay). */
const SEND_BITS = STATUS | DEFINITE | ACKS;
/** acks codes in the flags; 0 means "another value, see the side table". */
const ACKS_CODES: Readonly<Record<string, number>> = { '0': 1, '1': 2, all: 3 };
const ACKS_NAMES = ['', '0', '1', 'all'];
const NO_BROKER = 0xff;

/**
 * The invocation and completion halves of every send (send.invoke, send.ok, send.fail), one column per fact,
 * keyed by value id. A value is sent once; a second send.invoke of the same value starts its record over
 * (a simulator's producer numbers its values, so this only happens in hand-written traces).
 */
export class Sends {
  /** Partitions as tp id + 1 (0: none); ids past 65,534 are kept aside. */
  private readonly tps = new SmallColumn(16);
  private readonly tpSide = new Map<number, number>();
  private readonly keys = new IntColumn();
  private readonly invoked = new IntColumn();
  private readonly acked = new IntColumn();
  private readonly offsets = new IntColumn();
  private readonly producers = new SmallColumn(8);
  private readonly brokers = new SmallColumn(8);
  /** What does not fit the small columns: producers past 254, brokers past 254, other acks values, errors. */
  private readonly producerSide = new Map<number, number>();
  private readonly brokerSide = new Map<number, number>();
  private readonly acksSide = new Map<number, string>();
  private readonly errorOf = new Map<number, string>();
  /** Ids in invoke order, once they stop being ascending (several producers' blocks interleave); null until then. */
  private order: IntColumn | null = null;
  private orderLength = 0;
  private lastInvoked = -1;
  /** Values sent, and how many are in each state. */
  count = 0;
  readonly byStatus = [0, 0, 0, 0];
  /** Acknowledged batches and the records in them, per producer (by first acknowledgement). */
  readonly batchesOf = new Map<string, { batches: number; records: number }>();
  /** Called when a value's partition changes (it was sent before one was chosen, or re-sent elsewhere). */
  private readonly tpWatchers: ((v: number, before: number) => void)[] = [];

  constructor(
    /** The values' flags, shared with the reads. */
    private readonly flags: SmallColumn,
    private readonly values: ValueIds,
    private readonly tpIds: TopicPartitions,
    private readonly nodes: Names,
    private readonly keyNames: ValueIds,
  ) {}

  onTpChange(f: (v: number, before: number) => void): void {
    this.tpWatchers.push(f);
  }

  readonly handlers: Handlers = {
    'send.invoke': (e) => {
      const num = numberOf(e);
      const v = num !== undefined ? this.values.idOf(num.prefix, num.n) : this.values.id(e.value);
      const was = this.status(v);
      if (was === Status.None) {
        this.count++;
        this.ordered(v);
      }
      if (was !== Status.None) this.byStatus[was]!--;
      this.byStatus[Status.Unknown]!++;
      this.flags.set(v, (this.flags.get(v) & ~SEND_BITS) | Status.Unknown);
      this.setTp(v, this.tpIds.id(e.topic, e.partition));
      this.keys.set(v, e.key === null ? -1 : this.keyNames.id(e.key));
      this.invoked.set(v, e.t);
      this.acked.set(v, -1);
      this.offsets.set(v, -1);
      this.setProducer(v, this.nodes.id(e.node));
      this.brokers.set(v, NO_BROKER);
      this.errorOf.delete(v);
    },
    'send.ok': (e) => {
      const values = e.values;
      const tp = this.tpIds.id(e.topic, e.partition);
      const acks = ACKS_CODES[e.acks] ?? 0;
      const numbers = numbersOf(values);
      for (let i = 0; i < values.length; i++) {
        const v = this.values.idIn(numbers, i, values[i]!);
        const f = this.flags.get(v);
        if ((f & STATUS) === Status.None) continue;
        this.byStatus[f & STATUS]!--;
        this.byStatus[Status.Ok]!++;
        this.flags.set(v, (f & ~(STATUS | ACKS)) | Status.Ok | (acks << ACKS_SHIFT));
        if (acks === 0) this.acksSide.set(v, e.acks);
        this.setTp(v, tp);
        this.offsets.set(v, e.offset >= 0 ? e.offset + i : -1);
        this.acked.set(v, e.t);
        if (e.broker >= 0 && e.broker < NO_BROKER) this.brokers.set(v, e.broker);
        else {
          this.brokers.set(v, NO_BROKER);
          this.brokerSide.set(v, e.broker);
        }
      }
      const b = this.batchesOf.get(e.node);
      if (b) {
        b.batches++;
        b.records += values.length;
      } else this.batchesOf.set(e.node, { batches: 1, records: values.length });
    },
    'send.fail': (e) => {
      const numbers = numbersOf(e.values);
      for (let i = 0; i < e.values.length; i++) {
        const v = this.values.idIn(numbers, i, e.values[i]!);
        const f = this.flags.get(v);
        if ((f & STATUS) === Status.None) continue;
        this.byStatus[f & STATUS]!--;
        this.byStatus[Status.Fail]!++;
        this.flags.set(v, (f & ~(STATUS | DEFINITE)) | Status.Fail | (e.definite ? DEFINITE : 0));
        this.errorOf.set(v, e.error);
        this.acked.set(v, e.t);
        if (e.partition >= 0) this.setTp(v, this.tpIds.id(e.topic, e.partition));
      }
    },
  };

  private ordered(v: number): void {
    if (this.order === null) {
      if (v > this.lastInvoked) {
        this.lastInvoked = v;
        return;
      }
      // From here on the ids are no longer in invoke order: keep the order explicitly.
      this.order = new IntColumn();
      for (let id = 0; id <= this.lastInvoked; id++) if (this.status(id) !== Status.None) this.order.set(this.orderLength++, id);
    }
    this.order.set(this.orderLength++, v);
  }

  private setTp(v: number, tp: number): void {
    const before = this.tps.get(v) === 0 ? -1 : this.tp(v);
    if (before !== tp && before !== -1) for (const f of this.tpWatchers) f(v, before);
    if (tp < 0xffff) this.tps.set(v, tp + 1);
    else {
      this.tps.set(v, 0xffff);
      this.tpSide.set(v, tp);
    }
  }

  private setProducer(v: number, p: number): void {
    if (p < 0xff) this.producers.set(v, p);
    else {
      this.producers.set(v, 0xff);
      this.producerSide.set(v, p);
    }
  }

  /** Every sent value, in the order the application sent them. */
  forEach(f: (v: number) => void): void {
    if (this.order !== null) {
      for (let i = 0; i < this.orderLength; i++) f(this.order.get(i));
      return;
    }
    for (let v = 0; v <= this.lastInvoked; v++) if ((this.flags.get(v) & STATUS) !== Status.None) f(v);
  }

  /** Sent values in send order, while `f` returns true. */
  forEachUntil(f: (v: number) => boolean): void {
    if (this.order !== null) {
      for (let i = 0; i < this.orderLength; i++) if (!f(this.order.get(i))) return;
      return;
    }
    for (let v = 0; v <= this.lastInvoked; v++) if ((this.flags.get(v) & STATUS) !== Status.None && !f(v)) return;
  }

  status(v: number): Status {
    return (this.flags.get(v) & STATUS) as Status;
  }

  /** A definite failure: no attempt can have been written. */
  definite(v: number): boolean {
    return (this.flags.get(v) & DEFINITE) !== 0;
  }

  /** Its partition (a topic-only tp while the partition is not known). */
  tp(v: number): number {
    const t = this.tps.get(v);
    return t !== 0xffff ? t - 1 : this.tpSide.get(v)!;
  }

  /** Its key's id, -1 for no key. */
  key(v: number): number {
    return this.keys.get(v);
  }

  keyName(v: number): string {
    return this.keyNames.text(this.keys.get(v));
  }

  invokeUs(v: number): number {
    return this.invoked.get(v);
  }

  /** When it was acknowledged or failed, -1 before. */
  doneUs(v: number): number {
    return this.acked.get(v);
  }

  /** The offset the producer was told, -1 if none (acks=0, a failure, or no answer). */
  offset(v: number): number {
    return this.offsets.get(v);
  }

  acks(v: number): string {
    const code = (this.flags.get(v) & ACKS) >> ACKS_SHIFT;
    return code === 0 ? (this.acksSide.get(v) ?? '') : ACKS_NAMES[code]!;
  }

  /** The broker that acknowledged it, -1 if none. */
  broker(v: number): number {
    const b = this.brokers.get(v);
    return b !== NO_BROKER ? b : (this.brokerSide.get(v) ?? -1);
  }

  /** The producer's node id (in the history's node names). */
  producer(v: number): number {
    const p = this.producers.get(v);
    return p !== 0xff ? p : this.producerSide.get(v)!;
  }

  producerName(v: number): string {
    return this.nodes.name(this.producer(v));
  }

  error(v: number): string {
    return this.errorOf.get(v) ?? '';
  }
}
