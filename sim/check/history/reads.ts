import type { Handlers, TraceEventOf } from '../../core/trace';
import { numbersOfLists } from '../../core/numberedText';
import { IntColumn, SmallColumn } from './columns';
import type { LeaderAppends } from './appends';
import type { Names, TopicPartitions } from './ids';
import type { CurrentNumbers, ValueIds } from './values';

// Bits of a value's flags (history.ts; the sends use the low five and the top one).
const SEEN = 1 << 5;
/** Its first read was where a leader first appended it (the usual case); otherwise the place is kept aside. */
const FIRST_AT_APPEND = 1 << 6;
const NO_NODE = 0xff;
/** In an offset's first value: a tombstone (a record with a null value) was read there. */
export const TOMBSTONE = -1;
/** In an offset's first value: nothing was read there. */
export const NOTHING = -2;

/** A place a value was read at, with its first read there. */
export interface ReadPlace {
  readonly tp: number;
  readonly offset: number;
  readonly t: number;
  /** The consumer (node id). */
  readonly by: number;
}

/**
 * What consumers read at each offset of one partition: the first value read there and how many times it was
 * read; any other value read at the same offset (the log changed under the readers) is kept aside.
 */
export class OffsetReads {
  /** The first value read at each offset: a value id, TOMBSTONE, or NOTHING. */
  private readonly values = new IntColumn(NOTHING);
  private readonly counts = new SmallColumn(16);
  private readonly bigCounts = new Map<number, number>();
  /** offset -> other values read there, in the order first read, each with its count. */
  readonly others = new Map<number, { value: number; count: number }[]>();
  /** The lowest and highest offsets read (-1 before any). */
  minOffset = -1;
  maxOffset = -1;
  /** Tombstones have no value id to keep their first read by: offset -> the first read of a tombstone there. */
  readonly tombstoneReads = new Map<number, { t: number; by: number }>();

  add(o: number, v: number, t: number, by: number): void {
    if (v === TOMBSTONE && !this.tombstoneReads.has(o)) this.tombstoneReads.set(o, { t, by });
    if (o > this.maxOffset) this.maxOffset = o;
    if (o < this.minOffset || this.minOffset < 0) this.minOffset = o;
    const first = this.values.get(o);
    if (first === NOTHING) {
      this.values.set(o, v);
      this.counts.set(o, 1);
      return;
    }
    if (first === v) {
      const c = this.counts.get(o);
      if (c < 0xffff) this.counts.set(o, c + 1);
      else this.bigCounts.set(o, (this.bigCounts.get(o) ?? 0) + 1);
      return;
    }
    let list = this.others.get(o);
    if (!list) this.others.set(o, (list = []));
    const other = list.find((x) => x.value === v);
    if (other) other.count++;
    else list.push({ value: v, count: 1 });
  }

  /** The first value read at `o`: a value id, TOMBSTONE, or NOTHING. */
  first(o: number): number {
    return this.values.get(o);
  }

  /** How many times the first value at `o` was read. */
  firstCount(o: number): number {
    return this.values.get(o) === NOTHING ? 0 : this.counts.get(o) + (this.bigCounts.get(o) ?? 0);
  }

  /** Every offset read, ascending. */
  forEachOffset(f: (o: number) => void): void {
    if (this.minOffset < 0) return;
    for (let o = this.minOffset; o <= this.maxOffset; o++) if (this.values.get(o) !== NOTHING) f(o);
  }
}

/** A listener of a poll's records of one partition (Reads.onRecords). */
export type RecordsListener = (e: TraceEventOf<'consumer.poll'>, tp: number, offsets: readonly number[], values: Int32Array) => void;

/**
 * What consumers read (consumer.poll): each value's first read (when, by whom, where), the places a value was
 * read at when there were several, and per partition what was read at each offset. Keyed by value id and
 * partition, so a poll costs a few numbers per record, not an object.
 */
export class Reads {
  private readonly firstT = new IntColumn();
  private readonly firstBy = new SmallColumn(8);
  private readonly firstBySide = new Map<number, number>();
  /** First places that are not where a leader first appended the value. */
  private readonly firstPlace = new Map<number, { tp: number; offset: number }>();
  /** Values read at more than one place: every place, the first one first. */
  readonly places = new Map<number, ReadPlace[]>();
  /** Per partition (tp id): what was read at each offset. */
  readonly byPartition = new Map<number, OffsetReads>();
  /** Topics some consumer read (only those can have unseen records). */
  readonly consumedTopics = new Set<number>();
  /** Records delivered, with re-reads. */
  recordsRead = 0;
  /** Distinct values read. */
  seenCount = 0;
  /** Called once per partition of every poll, after the history has recorded its records. */
  private readonly listeners: RecordsListener[] = [];
  /** The value ids of the partition's records being handed to the listeners (reused, grown as needed). */
  private ids = new Int32Array(256);
  private readonly firstReadWatchers: ((v: number) => void)[] = [];

  constructor(
    /** The values' flags, shared with the sends. */
    private readonly flags: SmallColumn,
    private readonly values: ValueIds,
    private readonly numbers: CurrentNumbers,
    private readonly tps: TopicPartitions,
    private readonly nodes: Names,
    private readonly appends: LeaderAppends,
  ) {}

  /**
   * Also hands each poll's records of a partition to `f`, once per partition: its offsets, and their value ids
   * (or TOMBSTONE) in `values[0, offsets.length)` (read them during the call, keep none).
   */
  onRecords(f: RecordsListener): void {
    this.listeners.push(f);
  }

  /** Also hands each value to `f` when it is first read (after its first read is recorded). */
  onFirstRead(f: (v: number) => void): void {
    this.firstReadWatchers.push(f);
  }

  readonly handlers: Handlers = {
    'consumer.poll': (e) => {
      const by = this.nodes.id(e.node);
      for (let k = 0; k < e.records.length; k++) {
        const r = e.records[k]!;
        const tp = this.tps.id(r.topic, r.partition);
        this.consumedTopics.add(this.tps.topic(tp));
        let table = this.byPartition.get(tp);
        if (!table) this.byPartition.set(tp, (table = new OffsetReads()));
        const offsets = r.offsets;
        const values = r.values;
        const numbers = numbersOfLists(this.numbers.value, k);
        this.recordsRead += offsets.length;
        if (offsets.length > this.ids.length) this.ids = new Int32Array(Math.max(offsets.length, 2 * this.ids.length));
        const ids = this.ids;
        for (let i = 0; i < offsets.length; i++) {
          const o = offsets[i]!;
          const value = values[i] ?? null;
          const v = value === null ? TOMBSTONE : this.values.idIn(numbers, i, value);
          ids[i] = v;
          table.add(o, v, e.t, by);
          if (v >= 0) this.read(v, tp, o, e.t, by);
        }
        const listeners = this.listeners;
        for (let i = 0; i < listeners.length; i++) listeners[i]!(e, tp, offsets, ids);
      }
    },
  };

  private read(v: number, tp: number, o: number, t: number, by: number): void {
    const f = this.flags.get(v);
    if ((f & SEEN) === 0) {
      this.seenCount++;
      const atAppend = this.appends.offset(v) === o && this.appends.tp(v) === tp;
      this.flags.set(v, f | SEEN | (atAppend ? FIRST_AT_APPEND : 0));
      if (!atAppend) this.firstPlace.set(v, { tp, offset: o });
      this.firstT.set(v, t);
      if (by < NO_NODE) this.firstBy.set(v, by);
      else {
        this.firstBy.set(v, NO_NODE);
        this.firstBySide.set(v, by);
      }
      for (const f of this.firstReadWatchers) f(v);
      return;
    }
    const list = this.places.get(v);
    if (list) {
      if (!list.some((p) => p.tp === tp && p.offset === o)) list.push({ tp, offset: o, t, by });
      return;
    }
    const first = this.firstPlaceOf(v);
    if (first.tp !== tp || first.offset !== o) this.places.set(v, [{ ...first, t: this.firstT.get(v), by: this.firstReader(v) }, { tp, offset: o, t, by }]);
  }

  seen(v: number): boolean {
    return (this.flags.get(v) & SEEN) !== 0;
  }

  /** When it was first read (call only when `seen`). */
  firstReadUs(v: number): number {
    return this.firstT.get(v);
  }

  /** Who first read it (a node id). */
  firstReader(v: number): number {
    const b = this.firstBy.get(v);
    return b !== NO_NODE ? b : this.firstBySide.get(v)!;
  }

  /** Where it was first read. */
  firstPlaceOf(v: number): { tp: number; offset: number } {
    return (this.flags.get(v) & FIRST_AT_APPEND) !== 0 ? { tp: this.appends.tp(v), offset: this.appends.offset(v) } : this.firstPlace.get(v)!;
  }

  /** Its first read at (tp, offset): when and by whom, or undefined if it was never read there. */
  readAt(v: number, tp: number, offset: number): { t: number; by: number } | undefined {
    const list = this.places.get(v);
    if (list) return list.find((p) => p.tp === tp && p.offset === offset);
    const first = this.firstPlaceOf(v);
    return first.tp === tp && first.offset === offset ? { t: this.firstT.get(v), by: this.firstReader(v) } : undefined;
  }

  /** The values read, in the order of their first read (ties, in one instant, in send order). */
  seenInReadOrder(ids: Iterable<number>): number[] {
    return [...ids].sort((a, b) => this.firstT.get(a) - this.firstT.get(b) || a - b);
  }

  /** The highest offset read in a partition, -1 if none. */
  maxReadOffset(tp: number): number {
    return this.byPartition.get(tp)?.maxOffset ?? -1;
  }
}
