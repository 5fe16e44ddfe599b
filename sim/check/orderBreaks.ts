/**
 * Ordering per key, as a consumer application sees it: an order break is a record handed to the application
 * while an earlier record of the same key, in the same partition, is still out with another poll (not yet
 * processed by a consumer group's member; not yet acknowledged by a share group's member), so the two run side by
 * side, or after a later record of its key was already finished (a released record coming back late). A consumer group processes a partition on
 * one member, in order; a share group spreads one partition over several members and redelivers released
 * records after later ones, so `share.order-breaks` appear where `group.order-breaks` stay 0 on the same data.
 */
import { numbersOfLists, type NumberedTexts } from '../core/numberedText';
import { FIGURE, type CheckDefinition } from './check';
import { TopicPartitions } from './history/ids';
import type { CurrentNumbers } from './history/values';
import { ValueIds } from './history/values';
import { result } from './report';

/** In a key's open offset: it has none out. */
const NO_OFFSET = -1;
/** In a key's open offset: it has several out, listed in `KeyTable.many`. */
const SEVERAL = -2;

// A key's row in a table: four numbers side by side, so a record touches one place in memory, not four columns.
const ROW = 4;
/** The partition (tp id) whose state for the key the table holds, -1 for none yet. */
const HOME = 0;
/** The highest offset of the key finished so far, -1 before any. */
const MAX_FINISHED = 1;
/** The one offset of the key handed out and not finished (or NO_OFFSET, SEVERAL), and the poll it came with. */
const OPEN = 2;
const POLL = 3;
const BITS = 10;
const KEYS_PER_CHUNK = 1 << BITS;
const MASK = KEYS_PER_CHUNK - 1;

/**
 * The state of each key in one partition of one group, a row per key id (in chunks made on first use, every
 * number -1 until written): a key has at most one home partition in a table, and a group keeps as many tables
 * as one key has partitions (one, unless keys moved partition).
 */
class KeyTable {
  private readonly chunks: (Float64Array | undefined)[] = [];
  /**
   * Keys with several offsets out: the offsets, in the order first handed out, with the poll that handed each out
   * (`polls[i]` for `open[i]`); a key rarely has more than one out at once.
   */
  readonly many = new Map<number, { readonly open: number[]; readonly polls: number[] }>();

  /** The chunk holding the key's row (at rowAt(kid)), made if `make`. */
  chunk(kid: number, make: boolean): Float64Array | undefined {
    const k = kid >>> BITS;
    let c = this.chunks[k];
    if (c === undefined && make) this.chunks[k] = c = new Float64Array(KEYS_PER_CHUNK * ROW).fill(-1);
    return c;
  }
}

/** Where the key's row starts in its chunk. */
const rowAt = (kid: number) => (kid & MASK) * ROW;

/** A window bigger than this (offsets out this far apart) keeps the far ones in a map instead. */
const MAX_WINDOW = 1 << 16;

/**
 * The offsets of a partition handed out and not finished, each with its key id: a window over consecutive
 * offsets (a consumer hands out and finishes a partition's offsets nearly in order), moved and grown to span what
 * is out, so a long run holds only what is out; offsets too far from the rest wait in a map.
 */
export class OutOffsets {
  /** Per offset from `base`: its key id + 1, 0 when it is not out. */
  private keys = new Int32Array(64);
  private base = 0;
  private count = 0;
  private readonly far = new Map<number, number>();

  /** The key id of offset o while it is out, -1 when it is not. */
  get(o: number): number {
    const i = o - this.base;
    if (i >= 0 && i < this.keys.length && this.keys[i] !== 0) return this.keys[i]! - 1;
    return this.far.size === 0 ? -1 : (this.far.get(o) ?? -1);
  }

  set(o: number, kid: number): void {
    if (this.count === 0) this.base = o;
    let i = o - this.base;
    if ((i < 0 || i >= this.keys.length) && !this.fit(o)) {
      this.far.set(o, kid);
      return;
    }
    i = o - this.base;
    if (this.far.size > 0) this.far.delete(o);
    if (this.keys[i] === 0) this.count++;
    this.keys[i] = kid + 1;
  }

  delete(o: number): void {
    const i = o - this.base;
    if (i >= 0 && i < this.keys.length && this.keys[i] !== 0) {
      this.keys[i] = 0;
      this.count--;
    } else if (this.far.size > 0) this.far.delete(o);
  }

  /** How many offsets are out. */
  get size(): number {
    return this.count + this.far.size;
  }

  /** Every offset out with its key id, ascending by offset. */
  entries(): [offset: number, kid: number][] {
    const all: [number, number][] = [];
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] !== 0) all.push([this.base + i, this.keys[i]! - 1]);
    for (const [o, kid] of this.far) all.push([o, kid]);
    return all.sort((a, b) => a[0] - b[0]);
  }

  /** Moves (and if need be grows) the window to span what is out and `o`; false when that would be too big. */
  private fit(o: number): boolean {
    let lo = 0;
    while (this.keys[lo] === 0) lo++;
    let hi = this.keys.length - 1;
    while (this.keys[hi] === 0) hi--;
    const from = Math.min(o, this.base + lo);
    const span = Math.max(o, this.base + hi) - from + 1;
    if (span > MAX_WINDOW) return false;
    let size = this.keys.length;
    while (size < span * 2) size *= 2;
    const next = new Int32Array(size);
    next.set(this.keys.subarray(lo, hi + 1), this.base + lo - from);
    this.keys = next;
    this.base = from;
    return true;
  }
}

/**
 * One group's view of one partition. Most of the time a partition is read by one member, one poll at a time, in
 * offset order: then no record can break the order (no other poll has its records out, nothing later of its key is
 * finished), and the records handed out need no key rows until another poll takes some while they are out. Such
 * records wait in `quiet` (offset -> key id, the poll in `quietPoll`) and are entered in the key rows, in the order
 * they were handed out, only when the partition stops being quiet; what finishing them records (a key's highest
 * finished offset) is written as they finish, as for any record.
 */
interface Part {
  readonly group: Group;
  readonly tp: number;
  /** The records out that are entered in the key rows. */
  readonly out: OutOffsets;
  /** The records out that are not (all handed out by poll `quietPoll`, in ascending offsets up to `quietLast`). */
  readonly quiet: OutOffsets;
  quietPoll: number;
  quietLast: number;
  /** Key rows of this partition with an offset out (OPEN not NO_OFFSET). */
  rowsOpen: number;
  /** The highest offset finished in the partition, any key, -1 before any. */
  maxFinished: number;
  /**
   * Quiet records finished whose keys' highest finished offsets are not written yet: only a record handed out
   * below `maxFinished` reads those, so they are written together, when one is or when the list is full.
   */
  readonly done: FinishedList;
}

/** Finished offsets with their key ids, written to the key rows together (a loop over them, not one event each). */
class FinishedList {
  offsets = new Float64Array(0);
  kids = new Int32Array(0);
  length = 0;

  push(o: number, kid: number): void {
    if (this.length === this.offsets.length) this.grow();
    this.offsets[this.length] = o;
    this.kids[this.length++] = kid;
  }

  private grow(): void {
    const size = this.offsets.length === 0 ? 64 : this.offsets.length * 2;
    const offsets = new Float64Array(size);
    const kids = new Int32Array(size);
    offsets.set(this.offsets);
    kids.set(this.kids);
    this.offsets = offsets;
    this.kids = kids;
  }
}

/** How many finished quiet records a partition keeps before writing them to the key rows. */
const DONE_MAX = 1024;

/** Writes the partition's finished quiet records to their keys' rows (their highest finished offsets). */
function writeDone(p: Part): void {
  const d = p.done;
  const offsets = d.offsets;
  const kids = d.kids;
  for (let i = 0; i < d.length; i++) {
    const kid = kids[i]!;
    const o = offsets[i]!;
    const c = tableOf(p.group, p.tp, kid, true)!.chunk(kid, true)!;
    const r = rowAt(kid) + MAX_FINISHED;
    if (o > c[r]!) c[r] = o;
  }
  d.length = 0;
}

interface Group {
  readonly name: string;
  /** By tp id. */
  readonly parts: (Part | undefined)[];
  readonly tables: KeyTable[];
}

class Tracker {
  readonly groups = new Map<string, Group>();
  /** tp id -> every group's view of it (consumer.processed names no group). */
  readonly byTp: (Part[] | undefined)[] = [];
  breaks = 0;
  readonly examples: string[] = [];
  private lastGroup: Group | undefined;

  constructor(
    private readonly tps: TopicPartitions,
    private readonly keys: ValueIds,
  ) {}

  group(name: string): Group {
    const last = this.lastGroup;
    if (last !== undefined && last.name === name) return last;
    let g = this.groups.get(name);
    if (g === undefined) this.groups.set(name, (g = { name, parts: [], tables: [] }));
    this.lastGroup = g;
    return g;
  }

  part(g: Group, tp: number): Part {
    let p = g.parts[tp];
    if (p === undefined) {
      p = g.parts[tp] = { group: g, tp, out: new OutOffsets(), quiet: new OutOffsets(), quietPoll: -1, quietLast: -1, rowsOpen: 0, maxFinished: -1, done: new FinishedList() };
      (this.byTp[tp] ??= []).push(p);
    }
    return p;
  }

  find(group: string, topic: string, partition: number): Part | undefined {
    const tp = this.tps.find(topic, partition);
    return tp < 0 ? undefined : this.groups.get(group)?.parts[tp];
  }

  /**
   * One poll's records of a partition. A record is an order break when an earlier record of its key is still out
   * with another poll (they run side by side), or when a later record of its key was already finished (it runs
   * after it). Records of one poll are processed in order by the member that polled them.
   */
  delivered(g: Group, topic: string, partition: number, poll: number, offsets: readonly number[], keys: readonly (string | null)[], keyNumbers: NumberedTexts | undefined): void {
    const p = this.part(g, this.tps.id(topic, partition));
    // Quiet while no key row of the partition has an offset out and every record out came with this poll.
    let quiet = p.rowsOpen === 0 && (p.quiet.size === 0 || p.quietPoll === poll);
    if (!quiet) enterQuiet(p);
    // The keys' rows are read below (a highest finished offset) only for a record handed out below the partition's.
    if (p.done.length > 0 && !quiet) writeDone(p);
    for (let i = 0; i < offsets.length; i++) {
      const key = keys[i];
      if (key === null || key === undefined) continue;
      const o = offsets[i]!;
      const kid = this.keys.idIn(keyNumbers, i, key);
      if (quiet) {
        // Past every offset finished and every one out: no break, nothing to enter in the rows yet.
        if (o > p.maxFinished && (p.quiet.size === 0 || o > p.quietLast)) {
          if (p.out.size > 0) p.out.delete(o);
          p.quiet.set(o, kid);
          p.quietPoll = poll;
          p.quietLast = o;
          continue;
        }
        quiet = false;
        enterQuiet(p);
        if (p.done.length > 0) writeDone(p);
      }
      const t = tableOf(g, p.tp, kid, true)!;
      const c = t.chunk(kid, true)!;
      const r = rowAt(kid);
      p.out.set(o, kid);
      const maxFinished = c[r + MAX_FINISHED]!;
      let why: string | null = maxFinished > o ? `after offset ${maxFinished} of the same key was finished` : null;
      const one = c[r + OPEN]!;
      if (one === NO_OFFSET) {
        c[r + OPEN] = o;
        c[r + POLL] = poll;
        p.rowsOpen++;
      } else if (one >= 0) {
        if (one === o) c[r + POLL] = poll;
        else {
          if (why === null && one < o && c[r + POLL] !== poll) why = `while offset ${one} of the same key was still out`;
          t.many.set(kid, { open: [one, o], polls: [c[r + POLL]!, poll] });
          c[r + OPEN] = SEVERAL;
        }
      } else {
        const k = t.many.get(kid)!;
        let at = -1;
        for (let j = 0; j < k.open.length; j++) {
          const earlier = k.open[j]!;
          if (earlier === o) at = j;
          if (why === null && earlier < o && k.polls[j] !== poll) why = `while offset ${earlier} of the same key was still out`;
        }
        if (at >= 0) k.polls[at] = poll;
        else {
          k.open.push(o);
          k.polls.push(poll);
        }
      }
      if (why !== null) {
        this.breaks++;
        if (this.examples.length < 5) this.examples.push(`${g.name} ${this.tps.key(p.tp)}: key ${key} offset ${o} was handed out ${why}`);
      }
    }
  }
}

/** The table holding `kid`'s state in partition `tp` of the group; with `claim`, the first with room for it. */
function tableOf(g: Group, tp: number, kid: number, claim: boolean): KeyTable | undefined {
  const tables = g.tables;
  const r = rowAt(kid);
  for (let i = 0; i < tables.length; i++) {
    const t = tables[i]!;
    const c = t.chunk(kid, claim);
    if (c === undefined) continue;
    const home = c[r + HOME]!;
    if (home === tp) return t;
    if (home < 0 && claim) {
      c[r + HOME] = tp;
      return t;
    }
  }
  if (!claim) return undefined;
  const t = new KeyTable();
  tables.push(t);
  t.chunk(kid, true)![r + HOME] = tp;
  return t;
}

/**
 * Enters the partition's quiet records in the key rows, in the order they were handed out (ascending offsets, one
 * poll), as `delivered` would have: none of them broke the order, so only the rows change.
 */
function enterQuiet(p: Part): void {
  if (p.quiet.size === 0) return;
  const poll = p.quietPoll;
  for (const [o, kid] of p.quiet.entries()) {
    p.quiet.delete(o);
    p.out.set(o, kid);
    const t = tableOf(p.group, p.tp, kid, true)!;
    const c = t.chunk(kid, true)!;
    const r = rowAt(kid);
    const one = c[r + OPEN]!;
    if (one === NO_OFFSET) {
      c[r + OPEN] = o;
      c[r + POLL] = poll;
      p.rowsOpen++;
    } else if (one >= 0) {
      t.many.set(kid, { open: [one, o], polls: [c[r + POLL]!, poll] });
      c[r + OPEN] = SEVERAL;
    } else {
      const k = t.many.get(kid)!;
      k.open.push(o);
      k.polls.push(poll);
    }
  }
}

function finished(p: Part | undefined, offsets: readonly number[]): void {
  if (p === undefined) return;
  for (let i = 0; i < offsets.length; i++) {
    const o = offsets[i]!;
    if (p.quiet.size > 0) {
      const q = p.quiet.get(o);
      if (q >= 0) {
        // A quiet record: out of no key row; its key's highest finished offset is written later, with others.
        p.quiet.delete(o);
        p.done.push(o, q);
        if (p.done.length >= DONE_MAX) writeDone(p);
        if (o > p.maxFinished) p.maxFinished = o;
        continue;
      }
    }
    const kid = p.out.get(o);
    if (kid < 0) continue;
    const t = tableOf(p.group, p.tp, kid, false)!;
    const c = t.chunk(kid, false)!;
    const r = rowAt(kid);
    const one = c[r + OPEN]!;
    if (one === o) {
      c[r + OPEN] = NO_OFFSET;
      p.rowsOpen--;
    } else if (one !== SEVERAL) continue;
    else {
      const k = t.many.get(kid)!;
      const at = k.open.indexOf(o);
      if (at < 0) continue;
      k.open.splice(at, 1);
      k.polls.splice(at, 1);
      if (k.open.length === 1) {
        c[r + OPEN] = k.open[0]!;
        c[r + POLL] = k.polls[0]!;
        t.many.delete(kid);
      }
    }
    p.out.delete(o);
    if (o > c[r + MAX_FINISHED]!) c[r + MAX_FINISHED] = o;
    if (o > p.maxFinished) p.maxFinished = o;
  }
}

export const orderBreaks: CheckDefinition = {
  id: 'orderBreaks',
  source: FIGURE,
  make: (h) => {
    // Their own partition and key ids: the history's are numbered in the order its folds meet them.
    const tps = new TopicPartitions();
    const keys = new ValueIds();
    const share = new Tracker(tps, keys);
    const groups = new Tracker(tps, keys);
    const numbers: CurrentNumbers = h.numbers;
    return {
      handlers: {
        'share.poll': (e) => {
          const g = share.group(e.group);
          for (const r of e.records) share.delivered(g, r.topic, r.partition, e.seq, r.offsets, r.keys, undefined);
        },
        // The member is done with a record once it acknowledges it (any type but RENEW); a lock that expires or a session that closes ends it too.
        'share.ack': (e) => {
          if (e.type !== 'RENEW') finished(share.find(e.group, e.topic, e.partition), e.offsets);
        },
        'share.transition': (e) => {
          if (e.cause === 'lock-expired' || e.cause === 'member-left') finished(share.find(e.group, e.topic, e.partition), e.offsets);
        },
        'consumer.poll': (e) => {
          if (e.group === null) return;
          const g = groups.group(e.group);
          const records = e.records;
          for (let k = 0; k < records.length; k++) {
            const r = records[k]!;
            // The keys' numbers, if the emitter handed them (consumerHistory.ts): after every partition's values.
            groups.delivered(g, r.topic, r.partition, e.seq, r.offsets, r.keys, numbersOfLists(numbers.value, records.length + k));
          }
        },
        'consumer.processed': (e) => {
          // The event names no group: a consumer is in one group, so each group's view of the partition is closed.
          const tp = tps.find(e.topic, e.partition);
          const parts = tp < 0 ? undefined : groups.byTp[tp];
          if (parts !== undefined) for (const p of parts) finished(p, e.offsets);
        },
      },
      report: (out) => {
        out['share.order-breaks'] = result(share.breaks, share.examples);
        out['group.order-breaks'] = result(groups.breaks, groups.examples);
      },
    };
  },
};
