import type { Handlers, TraceEventOf } from '../../core/trace';
import { numbersOfList } from '../../core/numberedText';
import type { TopicPartitions } from './ids';
import type { CurrentNumbers, ValueIds } from './values';

/** One partition's ground truth at the end of the run (final.partition), as numbers. */
export interface FinalPartition {
  readonly tp: number;
  readonly leader: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly compacted: boolean;
  readonly offline: boolean;
  readonly isr: readonly number[];
  readonly elr: readonly number[];
  /** Records in the committed log. */
  readonly records: number;
  /** Compacted logs only: key id -> the highest offset holding it. */
  readonly lastOffsetOfKey: ReadonlyMap<number, number>;
  /** Replicas that disagree with this log: broker, and the offsets and values they hold there. */
  readonly diverged: readonly { readonly broker: number; readonly offsets: readonly number[]; readonly values: readonly (string | null)[] }[];
}

/** The final log being read, while its final.partition event is handed to the checks: offsets and value ids (-1 for a tombstone). */
export interface FinalLog {
  readonly final: FinalPartition;
  readonly offsets: readonly number[];
  readonly values: Int32Array;
  /** Its tombstones (null values), counted in the one pass that reads the log. */
  readonly tombstones: number;
  /** Whether its value ids, tombstones aside, ascend strictly (no value can be in it twice). */
  readonly ascending: boolean;
}

/**
 * The final committed logs (final.partition, written once per partition at the end of a run). The summary of
 * each is kept; the records themselves are looked at once, while their event goes by (`current`), by the checks
 * that compare the run with them, so the checkers never hold a second copy of every log.
 */
export class Finals {
  readonly byTp = new Map<number, FinalPartition>();
  /** The log of the final.partition event being handled, null otherwise. */
  current: FinalLog | null = null;
  /** Records in all final logs. */
  records = 0;

  constructor(
    private readonly values: ValueIds,
    private readonly numbers: CurrentNumbers,
    private readonly tps: TopicPartitions,
    private readonly keys: ValueIds,
  ) {}

  readonly handlers: Handlers = {
    'final.partition': (e) => {
      this.current = this.read(e);
      this.byTp.set(this.current.final.tp, this.current.final);
      this.records += e.offsets.length;
    },
  };

  private read(e: TraceEventOf<'final.partition'>): FinalLog {
    const tp = this.tps.id(e.topic, e.partition);
    const values = new Int32Array(e.offsets.length);
    const lastOffsetOfKey = new Map<number, number>();
    const numbers = numbersOfList(this.numbers.value);
    let tombstones = 0;
    let ascending = true;
    let last = -1;
    for (let i = 0; i < e.offsets.length; i++) {
      const v = e.values[i] ?? null;
      const id = v === null ? -1 : this.values.idIn(numbers, i, v);
      values[i] = id;
      if (id < 0) tombstones++;
      else {
        if (id <= last) ascending = false;
        last = id;
      }
      const k = e.compacted ? e.keys[i] : null;
      if (k !== null && k !== undefined) lastOffsetOfKey.set(this.keys.id(k), e.offsets[i]!);
    }
    const final: FinalPartition = {
      tp,
      leader: e.leader,
      highWatermark: e.highWatermark,
      logStartOffset: e.logStartOffset,
      logEndOffset: e.logEndOffset,
      compacted: e.compacted,
      offline: e.offline,
      isr: e.isr,
      elr: e.elr,
      records: e.offsets.length,
      lastOffsetOfKey,
      diverged: e.diverged ?? [],
    };
    return { final, offsets: e.offsets, values, tombstones, ascending };
  }

  get(tp: number): FinalPartition | undefined {
    return this.byTp.get(tp);
  }
}

/** The index of the first of the ascending `offsets` above `x`. */
export function firstAbove(offsets: ArrayLike<number>, x: number): number {
  let a = 0;
  let b = offsets.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (offsets[m]! <= x) a = m + 1;
    else b = m;
  }
  return a;
}

/** How many of the ascending `offsets` lie strictly between `lo` and `hi`. */
export function countBetween(offsets: ArrayLike<number>, lo: number, hi: number): number {
  return Math.max(0, firstAbove(offsets, hi - 1) - firstAbove(offsets, lo));
}
