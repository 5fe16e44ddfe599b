import type { Handlers } from '../../core/trace';
import { numberOfText, numbersOfList } from '../../core/numberedText';
import { IntColumn, RowColumn, SmallColumn } from './columns';
import type { Names, TopicPartitions } from './ids';
import type { CurrentNumbers, ValueIds } from './values';

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
/** Sent as a tombstone: a null value that deletes its key; no log or poll shows its value. */
const TOMBSTONE = 1 << 7;
/** The bits a new send starts over (the reads' bits stay). */
const SEND_BITS = STATUS | DEFINITE | ACKS | TOMBSTONE;
/** acks codes in the flags; 0 means "another value, see the side table". */
const ACKS_CODES: Readonly<Record<string, number>> = { '0': 1, '1': 2, all: 3 };
const ACKS_NAMES = ['', '0', '1', 'all'];
/** In a row's broker code: none (the default); a broker b < BROKER_SIDE is kept as b + 1. */
const NO_BROKER = 0;
/** In a row's broker code: a broker kept in the side table (too big, or negative). */
const BROKER_SIDE = 0xff;

// A send's row (RowColumn): five whole numbers side by side.
/** Its place, packed: partition as tp id + 1 (bits 0-15; 0: none, 0xffff: aside), producer (16-23), broker code (24-31). */
const PLACE = 0;
/** Its key's id, -1 for none. */
const KEY = 1;
/** When it was sent, and when answered (-1 before). */
const INVOKED = 2;
const ACKED = 3;
/** The offset the producer was told, -1 if none. */
const OFFSET = 4;
const ROW_FILLS = [0, -1, -1, -1, -1];
const TP_BITS = 0xffff;
const PRODUCER_SHIFT = 16;
const BROKER_SHIFT = 24;

/**
 * The answers of one send.ok or send.fail as the completion watchers see them: one object refilled for each event
 * (read it, keep none of it), the event's shared facts once and each record's in a typed row, so a watcher loops
 * over a batch instead of being called, and every column looked up again, once per record.
 */
export class Answers {
  status: Status = Status.None;
  doneUs = -1;
  /** A send.ok's batch sent with acks=0 (acknowledged at once, without a broker's answer); false for send.fail. */
  acks0 = false;
  /** Records answered (the rows below hold `length` entries; values never sent are left out). */
  length = 0;
  v = new Int32Array(64);
  tp = new Int32Array(64);
  producer = new Int32Array(64);
  /** Its key's id, -1 for no key. */
  key = new Int32Array(64);
  /** The offset the producer was told, -1 if none. */
  offset = new Float64Array(64);
  invokeUs = new Float64Array(64);

  /** Starts over for an event of `n` records at most. */
  reset(status: Status, doneUs: number, n: number): void {
    this.status = status;
    this.doneUs = doneUs;
    this.acks0 = false;
    this.length = 0;
    if (n > this.v.length) {
      let cap = this.v.length * 2;
      while (cap < n) cap *= 2;
      this.v = new Int32Array(cap);
      this.tp = new Int32Array(cap);
      this.producer = new Int32Array(cap);
      this.key = new Int32Array(cap);
      this.offset = new Float64Array(cap);
      this.invokeUs = new Float64Array(cap);
    }
  }
}

/**
 * The invocation and completion halves of every send (send.invoke, send.ok, send.fail), one row of numbers per
 * value id (its partition, producer and broker packed in one, key, times, offset). A value is sent once; a second send.invoke of the same value starts its record over
 * (a simulator's producer numbers its values, so this only happens in hand-written traces).
 */
export class Sends {
  private readonly rows = new RowColumn(5, ROW_FILLS);
  /** What does not fit a row: tp ids past 65,534, producers past 254, brokers past 254; and other acks values, errors. */
  private readonly tpSide = new Map<number, number>();
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
  /** The values sent as tombstones, in send order (a workload sends few; most runs none). */
  readonly tombstones: number[] = [];
  /** Called when a value's partition changes (it was sent before one was chosen, or re-sent elsewhere). */
  private readonly tpWatchers: ((v: number, before: number) => void)[] = [];
  /** Called once per send.ok or send.fail, with the answers it recorded. */
  private readonly completeWatchers: ((a: Answers) => void)[] = [];
  private readonly answers = new Answers();
  /**
   * Whether a value's send record changed after it was complete: sent again, answered twice, moved from one
   * partition to another. A simulator's producer never does this (only hand-written traces can), so checks may
   * fold each value once, when its send completes, and fall back to a pass over every send when this is set.
   */
  irregular = false;
  /** Whether some producer's values stopped coming in ascending ids (its sends in id order are its send order until then). */
  producerIdsUnordered = false;
  private readonly lastIdOfProducer: number[] = [];
  /** Every value before this position in send order is complete (or never sent): where open ones are looked for. */
  private openFrom = 0;

  constructor(
    /** The values' flags, shared with the reads. */
    private readonly flags: SmallColumn,
    private readonly values: ValueIds,
    private readonly numbers: CurrentNumbers,
    private readonly tpIds: TopicPartitions,
    private readonly nodes: Names,
    private readonly keyNames: ValueIds,
  ) {}

  onTpChange(f: (v: number, before: number) => void): void {
    this.tpWatchers.push(f);
  }

  readonly handlers: Handlers = {
    'send.invoke': (e) => {
      const num = numberOfText(this.numbers.value);
      const v = num !== undefined ? this.values.idOf(num.prefix, num.n) : this.values.id(e.value);
      const was = this.status(v);
      if (was === Status.None) {
        this.count++;
        this.ordered(v);
      } else this.irregular = true;
      if (was !== Status.None) this.byStatus[was]!--;
      this.byStatus[Status.Unknown]!++;
      const tombstone = e.tombstone === true;
      if (tombstone && (this.flags.get(v) & TOMBSTONE) === 0) this.tombstones.push(v);
      this.flags.set(v, (this.flags.get(v) & ~SEND_BITS) | Status.Unknown | (tombstone ? TOMBSTONE : 0));
      const tp = this.invokeTp(e.topic, e.partition);
      const producer = this.nodes.id(e.node);
      const rows = this.rows;
      // A first send finds its row at the defaults (an answer is recorded only for a value sent): its place is
      // written at once; only a value sent again has its row to start over.
      if (was === Status.None && tp < TP_BITS && producer < 0xff) rows.set(v, PLACE, (tp + 1) | (producer << PRODUCER_SHIFT));
      else {
        this.setTp(v, tp);
        this.setProducer(v, producer);
      }
      if (e.key !== null) rows.set(v, KEY, num?.keyPrefix !== undefined && num.keyN! >= 0 ? this.keyNames.idOf(num.keyPrefix, num.keyN!) : this.keyNames.id(e.key));
      else if (was !== Status.None) rows.set(v, KEY, -1);
      rows.set(v, INVOKED, e.t);
      if (was !== Status.None) {
        rows.set(v, ACKED, -1);
        rows.set(v, OFFSET, -1);
        this.setBrokerCode(v, NO_BROKER);
        this.errorOf.delete(v);
      }
      if (v <= (this.lastIdOfProducer[producer] ?? -1)) this.producerIdsUnordered = true;
      this.lastIdOfProducer[producer] = v;
    },
    'send.ok': (e) => {
      const values = e.values;
      const tp = this.tpIds.id(e.topic, e.partition);
      const acks = ACKS_CODES[e.acks] ?? 0;
      const numbers = numbersOfList(this.numbers.value);
      const a = this.answers;
      a.reset(Status.Ok, e.t, values.length);
      a.acks0 = acks === ACKS_CODES['0'];
      for (let i = 0; i < values.length; i++) {
        const v = this.values.idIn(numbers, i, values[i]!);
        const f = this.flags.get(v);
        if ((f & STATUS) === Status.None) continue;
        if ((f & STATUS) !== Status.Unknown) this.irregular = true;
        this.byStatus[f & STATUS]!--;
        this.byStatus[Status.Ok]!++;
        this.flags.set(v, (f & ~(STATUS | ACKS)) | Status.Ok | (acks << ACKS_SHIFT));
        if (acks === 0) this.acksSide.set(v, e.acks);
        this.setTp(v, tp);
        const offset = e.offset >= 0 ? e.offset + i : -1;
        this.rows.set(v, OFFSET, offset);
        this.rows.set(v, ACKED, e.t);
        if (e.broker >= 0 && e.broker < BROKER_SIDE - 1) this.setBrokerCode(v, e.broker + 1);
        else {
          this.setBrokerCode(v, BROKER_SIDE);
          this.brokerSide.set(v, e.broker);
        }
        this.answered(v, tp, offset);
      }
      this.completed();
      const b = this.batchesOf.get(e.node);
      if (b) {
        b.batches++;
        b.records += values.length;
      } else this.batchesOf.set(e.node, { batches: 1, records: values.length });
    },
    'send.fail': (e) => {
      const numbers = numbersOfList(this.numbers.value);
      this.answers.reset(Status.Fail, e.t, e.values.length);
      for (let i = 0; i < e.values.length; i++) {
        const v = this.values.idIn(numbers, i, e.values[i]!);
        const f = this.flags.get(v);
        if ((f & STATUS) === Status.None) continue;
        if ((f & STATUS) !== Status.Unknown) this.irregular = true;
        this.byStatus[f & STATUS]!--;
        this.byStatus[Status.Fail]!++;
        this.flags.set(v, (f & ~(STATUS | DEFINITE)) | Status.Fail | (e.definite ? DEFINITE : 0));
        this.errorOf.set(v, e.error);
        this.rows.set(v, ACKED, e.t);
        if (e.partition >= 0) this.setTp(v, this.tpIds.id(e.topic, e.partition));
        this.answered(v, this.tp(v), this.rows.get(v, OFFSET));
      }
      this.completed();
    },
  };

  /**
   * send.invoke's partition id: kept by partition for the last topic named, since a producer's sends name one
   * topic and spread over its partitions in turn (TopicPartitions.id remembers only the last partition).
   */
  private invokeTp(topic: string, partition: number): number {
    if (topic !== this.invokeTopic) {
      this.invokeTopic = topic;
      this.invokeTps = [];
    }
    let tp = this.invokeTps[partition + 1];
    if (tp === undefined) this.invokeTps[partition + 1] = tp = this.tpIds.id(topic, partition);
    return tp;
  }

  private invokeTopic: string | null = null;
  private invokeTps: number[] = [];

  private ordered(v: number): void {
    if (this.order === null) {
      if (v > this.lastInvoked) {
        this.lastInvoked = v;
        return;
      }
      // From here on the ids are no longer in invoke order: keep the order explicitly.
      this.order = new IntColumn();
      this.openFrom = 0;
      for (let id = 0; id <= this.lastInvoked; id++) if (this.status(id) !== Status.None) this.order.set(this.orderLength++, id);
    }
    this.order.set(this.orderLength++, v);
  }

  /** Also hands the answers of every send.ok and send.fail to `f`, once their records are recorded. */
  onComplete(f: (a: Answers) => void): void {
    this.completeWatchers.push(f);
  }

  /** Adds a record's answer to the event's answers (for the completion watchers). */
  private answered(v: number, tp: number, offset: number): void {
    const a = this.answers;
    const i = a.length++;
    a.v[i] = v;
    a.tp[i] = tp;
    a.producer[i] = this.producer(v);
    a.key[i] = this.rows.get(v, KEY);
    a.offset[i] = offset;
    a.invokeUs[i] = this.rows.get(v, INVOKED);
  }

  /** Hands the event's answers to the completion watchers. */
  private completed(): void {
    const a = this.answers;
    if (a.length === 0) return;
    const watchers = this.completeWatchers;
    for (let i = 0; i < watchers.length; i++) watchers[i]!(a);
    this.advanceOpen();
  }

  /** Moves `openFrom` past the values answered (each value is passed once over a run). */
  private advanceOpen(): number {
    const end = this.order !== null ? this.orderLength : this.lastInvoked + 1;
    while (this.openFrom < end && this.status(this.order !== null ? this.order.get(this.openFrom) : this.openFrom) !== Status.Unknown) this.openFrom++;
    return end;
  }

  /** When the oldest send still without an answer was made (the earliest such), or `otherwise` when none is open. */
  oldestOpenUs(otherwise: number): number {
    const end = this.advanceOpen();
    return this.openFrom < end ? this.rows.get(this.order !== null ? this.order.get(this.openFrom) : this.openFrom, INVOKED) : otherwise;
  }

  /**
   * Every value still without an answer, in send order: a look at the sends from the oldest open one on (what is
   * in flight at the end, unless an early send never got an answer).
   */
  forEachOpen(f: (v: number) => void): void {
    const at = (i: number) => (this.order !== null ? this.order.get(i) : i);
    const end = this.advanceOpen();
    for (let i = this.openFrom; i < end; i++) if (this.status(at(i)) === Status.Unknown) f(at(i));
  }

  private setTp(v: number, tp: number): void {
    const before = (this.rows.get(v, PLACE) & TP_BITS) === 0 ? -1 : this.tp(v);
    // The usual answer: the partition the send already named (nothing to write).
    if (before === tp) return;
    if (before !== -1 && this.tpIds.partition(before) >= 0) this.irregular = true;
    if (before !== -1) for (const f of this.tpWatchers) f(v, before);
    if (tp < TP_BITS) this.setPlace(v, TP_BITS, 0, tp + 1);
    else {
      this.setPlace(v, TP_BITS, 0, TP_BITS);
      this.tpSide.set(v, tp);
    }
  }

  private setProducer(v: number, p: number): void {
    if (p < 0xff) this.setPlace(v, 0xff, PRODUCER_SHIFT, p);
    else {
      this.setPlace(v, 0xff, PRODUCER_SHIFT, 0xff);
      this.producerSide.set(v, p);
    }
  }

  private setBrokerCode(v: number, code: number): void {
    this.setPlace(v, 0xff, BROKER_SHIFT, code);
  }

  /** Writes one field (`mask` wide, at `shift`) of the value's packed place. */
  private setPlace(v: number, mask: number, shift: number, x: number): void {
    const place = this.rows.get(v, PLACE);
    this.rows.set(v, PLACE, (place & ~(mask << shift)) | (x << shift));
  }

  /** Every sent value, in the order the application sent them. */
  forEach(f: (v: number) => void): void {
    if (this.order !== null) {
      for (let i = 0; i < this.orderLength; i++) f(this.order.get(i));
      return;
    }
    for (let v = 0; v <= this.lastInvoked; v++) if ((this.flags.get(v) & STATUS) !== Status.None) f(v);
  }

  /**
   * The send order as positions, for a pass written as a plain loop (`for (i < orderSpan) { v = sentAt(i); if
   * (v >= 0) ... }`): a pass over 10^5 values that calls a function for each (forEach's callback, which sees every
   * check's) costs several times the loop's reads.
   */
  get orderSpan(): number {
    return this.order !== null ? this.orderLength : this.lastInvoked + 1;
  }

  /** Whether positions in the send order are value ids (ascending so far); once not, they index an order list. */
  get inIdOrder(): boolean {
    return this.order === null;
  }

  /** The value at position `i` of the send order, -1 for an id never sent (i < orderSpan). */
  sentAt(i: number): number {
    if (this.order !== null) return this.order.get(i);
    return (this.flags.get(i) & STATUS) !== Status.None ? i : -1;
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

  /** Sent as a tombstone (a null value). */
  tombstone(v: number): boolean {
    return (this.flags.get(v) & TOMBSTONE) !== 0;
  }

  /** A definite failure: no attempt can have been written. */
  definite(v: number): boolean {
    return (this.flags.get(v) & DEFINITE) !== 0;
  }

  /** Its partition (a topic-only tp while the partition is not known). */
  tp(v: number): number {
    const t = this.rows.get(v, PLACE) & TP_BITS;
    return t !== TP_BITS ? t - 1 : this.tpSide.get(v)!;
  }

  /** Its key's id, -1 for no key. */
  key(v: number): number {
    return this.rows.get(v, KEY);
  }

  keyName(v: number): string {
    return this.keyNames.text(this.rows.get(v, KEY));
  }

  invokeUs(v: number): number {
    return this.rows.get(v, INVOKED);
  }

  /** When it was acknowledged or failed, -1 before. */
  doneUs(v: number): number {
    return this.rows.get(v, ACKED);
  }

  /** The offset the producer was told, -1 if none (acks=0, a failure, or no answer). */
  offset(v: number): number {
    return this.rows.get(v, OFFSET);
  }

  acks(v: number): string {
    const code = (this.flags.get(v) & ACKS) >> ACKS_SHIFT;
    return code === 0 ? (this.acksSide.get(v) ?? '') : ACKS_NAMES[code]!;
  }

  /** The broker that acknowledged it, -1 if none. */
  broker(v: number): number {
    const b = (this.rows.get(v, PLACE) >>> BROKER_SHIFT) & 0xff;
    return b === NO_BROKER ? -1 : b !== BROKER_SIDE ? b - 1 : this.brokerSide.get(v)!;
  }

  /** The producer's node id (in the history's node names). */
  producer(v: number): number {
    const p = (this.rows.get(v, PLACE) >>> PRODUCER_SHIFT) & 0xff;
    return p !== 0xff ? p : this.producerSide.get(v)!;
  }

  producerName(v: number): string {
    return this.nodes.name(this.producer(v));
  }

  error(v: number): string {
    return this.errorOf.get(v) ?? '';
  }
}
