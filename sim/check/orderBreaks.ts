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
import { IntColumn } from './history/columns';
import { TopicPartitions } from './history/ids';
import type { CurrentNumbers } from './history/values';
import { ValueIds } from './history/values';
import { result } from './report';

/** In a key's open offset: it has none out. */
const NO_OFFSET = -1;
/** In a key's open offset: it has several out, listed in `KeyTable.many`. */
const SEVERAL = -2;

/**
 * The state of each key in one partition of one group, in columns by key id: a key has at most one home partition
 * in a table, and a group keeps as many tables as one key has partitions (one, unless keys moved partition).
 */
class KeyTable {
  /** Key id -> the partition (tp id) whose state for the key this table holds, -1 for none yet. */
  readonly home = new IntColumn();
  /** The highest offset of the key finished so far, -1 before any. */
  readonly maxFinished = new IntColumn();
  /** The one offset of the key handed out and not finished (NO_OFFSET, or SEVERAL), and the poll it came with. */
  readonly open = new IntColumn(NO_OFFSET);
  readonly poll = new IntColumn();
  /**
   * Keys with several offsets out: the offsets, in the order first handed out, with the poll that handed each out
   * (`polls[i]` for `open[i]`); a key rarely has more than one out at once.
   */
  readonly many = new Map<number, { readonly open: number[]; readonly polls: number[] }>();
}

/** One group's view of one partition. */
interface Part {
  readonly group: Group;
  readonly tp: number;
  /** Offset handed out and not finished -> its key id (dropped when finished, so a long run holds only what is out). */
  readonly out: Map<number, number>;
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
      p = g.parts[tp] = { group: g, tp, out: new Map() };
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
    for (let i = 0; i < offsets.length; i++) {
      const key = keys[i];
      if (key === null || key === undefined) continue;
      const o = offsets[i]!;
      const kid = this.keys.idIn(keyNumbers, i, key);
      const t = tableOf(g, p.tp, kid, true)!;
      p.out.set(o, kid);
      const maxFinished = t.maxFinished.get(kid);
      let why: string | null = maxFinished > o ? `after offset ${maxFinished} of the same key was finished` : null;
      const one = t.open.get(kid);
      if (one === NO_OFFSET) {
        t.open.set(kid, o);
        t.poll.set(kid, poll);
      } else if (one >= 0) {
        if (one === o) t.poll.set(kid, poll);
        else {
          if (why === null && one < o && t.poll.get(kid) !== poll) why = `while offset ${one} of the same key was still out`;
          t.many.set(kid, { open: [one, o], polls: [t.poll.get(kid), poll] });
          t.open.set(kid, SEVERAL);
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
  for (let i = 0; i < tables.length; i++) {
    const t = tables[i]!;
    const home = t.home.get(kid);
    if (home === tp) return t;
    if (home < 0 && claim) {
      t.home.set(kid, tp);
      return t;
    }
  }
  if (!claim) return undefined;
  const t = new KeyTable();
  tables.push(t);
  t.home.set(kid, tp);
  return t;
}

function finished(p: Part | undefined, offsets: readonly number[]): void {
  if (p === undefined) return;
  for (let i = 0; i < offsets.length; i++) {
    const o = offsets[i]!;
    const kid = p.out.get(o);
    if (kid === undefined) continue;
    const t = tableOf(p.group, p.tp, kid, false)!;
    const one = t.open.get(kid);
    if (one === o) t.open.set(kid, NO_OFFSET);
    else if (one !== SEVERAL) continue;
    else {
      const k = t.many.get(kid)!;
      const at = k.open.indexOf(o);
      if (at < 0) continue;
      k.open.splice(at, 1);
      k.polls.splice(at, 1);
      if (k.open.length === 1) {
        t.open.set(kid, k.open[0]!);
        t.poll.set(kid, k.polls[0]!);
        t.many.delete(kid);
      }
    }
    p.out.delete(o);
    if (o > t.maxFinished.get(kid)) t.maxFinished.set(kid, o);
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
