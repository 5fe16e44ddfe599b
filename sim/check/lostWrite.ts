/**
 * lost-write: acknowledged records missing from the final committed log of the healed cluster (Jepsen's
 * name; this form needs the simulator's truth, the final logs, where Jepsen infers it from reads: see
 * lostWriteJepsen.ts). A record that left the log legitimately does not count: retention deleted its segment,
 * or compaction kept a newer record of its key, or an acknowledged tombstone of its key came after it (the
 * cleaner then removes the tombstone too, once delete.retention.ms has passed). A tombstone has no value to
 * find: it is in the final log when its offset holds a null value there. Each lost write comes with its story
 * (lostWriteStory.ts).
 */
import { type CheckDefinition } from './check';
import { BitSet } from './history/columns';
import type { FinalPartition } from './history/finals';
import type { History } from './history/history';
import { firstAbove } from './history/finals';
import { tpKey } from '../kafka/topicPartition';
import { Status } from './history/sends';
import { StoryEvents, lostWriteStory } from './lostWriteStory';
import { result } from './report';

/** Stories told at most (each reads the events around its record). */
const MAX_STORIES = 20;

export const lostWrite: CheckDefinition = {
  id: 'lostWrite',
  source: 'Jepsen: lost-write (judged against the final logs, which only a simulator can see)',
  make: (h) => {
    /** Values present in the final log of the partition they were written to. */
    const inFinal = new BitSet();
    const story = new StoryEvents();
    const deletes = new Deletes(h);
    /**
     * Values put in `inFinal` while acknowledged: when that is every acknowledged value (and no send changed after
     * its answer), none is lost and the report need not look at each.
     */
    let okInFinal = 0;
    const found = (v: number) => {
      if (inFinal.add(v) && h.sends.status(v) === Status.Ok) okInFinal++;
    };
    /** Acknowledged tombstones by partition, made when the final logs begin (null: not yet). */
    let tombstonesOf: Map<number, number[]> | null = null;
    return {
      handlers: {
        ...story.handlers,
        'log.clean': (e) => {
          // By name: the history numbers partitions as the records meet them, not as the cleaners run.
          if (e.tombstonesRemoved > 0) deletes.cleaned.add(tpKey(e.topic, e.partition));
        },
        'final.partition': () => {
          const log = h.finals.current!;
          const tp = log.final.tp;
          for (let i = 0; i < log.values.length; i++) {
            const v = log.values[i]!;
            if (v >= 0 && h.sends.status(v) !== Status.None && lostTp(h, v) === tp) found(v);
          }
          if (h.sends.tombstones.length === 0) return;
          tombstonesOf ??= ackedTombstonesByPartition(h);
          for (const v of tombstonesOf.get(tp) ?? []) {
            const o = recordOffset(h, v);
            const i = firstAbove(log.offsets, o - 1);
            if (o >= 0 && log.offsets[i] === o && log.values[i] === -1) found(v);
          }
        },
      },
      report: (out) => {
        const lost: number[] = [];
        const everyAckedInFinal = !h.sends.irregular && okInFinal === h.sends.byStatus[Status.Ok];
        if (h.finals.byTp.size > 0 && !everyAckedInFinal) {
          const s = h.sends;
          for (let i = 0, n = s.orderSpan; i < n; i++) {
            const v = s.sentAt(i);
            if (v < 0 || s.status(v) !== Status.Ok || inFinal.has(v)) continue;
            const f = h.finals.get(lostTp(h, v));
            if (f && !goneLegitimately(h, v, recordOffset(h, v), f, deletes)) lost.push(v);
          }
        }
        const s = h.sends;
        out['lost-write'] = result(
          lost.length,
          lost.slice(0, 5).map((v) => `${h.value(v)} acknowledged at ${h.at(s.doneUs(v))} (${h.where(s.tp(v))} offset ${s.offset(v)}, acks=${s.acks(v)}) is not in the final log`),
          { stories: lost.slice(0, MAX_STORIES).map((v) => lostWriteStory(h, story, v)), values: lost.map((v) => h.value(v)) },
        );
      },
    };
  },
};

/** The partition a record was written to: where a leader first appended it, else where it was sent. */
export function lostTp(h: History, v: number): number {
  const sent = h.sends.tp(v);
  if (!h.appends.has(v)) return sent;
  // Appended where it was sent (nearly always): the send's own partition, without looking it up again.
  const appended = h.appends.tp(v);
  return appended === sent ? sent : h.tps.withPartition(sent, h.tps.partition(appended));
}

/** Its offset: the one its producer was told, else where a leader first appended it, else -1. */
export function recordOffset(h: History, v: number): number {
  const o = h.sends.offset(v);
  return o >= 0 ? o : h.appends.has(v) ? h.appends.offset(v) : -1;
}

/** Acknowledged tombstones, by the partition they were written to. */
function ackedTombstonesByPartition(h: History): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const v of h.sends.tombstones) {
    if (h.sends.status(v) !== Status.Ok || !h.sends.tombstone(v)) continue;
    const tp = lostTp(h, v);
    const list = out.get(tp);
    if (list) list.push(v);
    else out.set(tp, [v]);
  }
  return out;
}

/** What deleted keys under compaction: acknowledged tombstones, and the partitions whose cleaner removed tombstones. */
class Deletes {
  /** Partitions a cleaner removed tombstones from (log.clean), on any replica. */
  readonly cleaned = new Set<string>();
  /** Partition -> key id -> the offset of its last acknowledged tombstone; made on first use. */
  private deletedAt: Map<number, Map<number, number>> | null = null;

  constructor(private readonly h: History) {}

  /** The offset of the last acknowledged tombstone of `key` in `tp`, -1 if none. */
  lastTombstone(tp: number, key: number): number {
    if (this.deletedAt === null) {
      this.deletedAt = new Map();
      const s = this.h.sends;
      for (const v of s.tombstones) {
        const o = recordOffset(this.h, v);
        if (s.status(v) !== Status.Ok || !s.tombstone(v) || s.key(v) < 0 || o < 0) continue;
        const p = lostTp(this.h, v);
        let m = this.deletedAt.get(p);
        if (!m) this.deletedAt.set(p, (m = new Map()));
        m.set(s.key(v), Math.max(o, m.get(s.key(v)) ?? -1));
      }
    }
    return this.deletedAt.get(tp)?.get(key) ?? -1;
  }
}

/**
 * Whether a record that is not in the final log left it legitimately: retention; or under compaction a newer
 * record of its key, an acknowledged tombstone of its key after it, or (for a tombstone) the cleaner's removal
 * of tombstones once delete.retention.ms had passed [src: LogCleaner.java `shouldRetainRecord`, KIP-534].
 */
export function goneLegitimately(h: History, v: number, offset: number, f: FinalPartition, deletes?: Deletes): boolean {
  if (offset >= 0 && offset < f.logStartOffset) return true;
  const key = h.sends.key(v);
  if (f.compacted && key >= 0) {
    const last = f.lastOffsetOfKey.get(key);
    if (last !== undefined && (offset < 0 || last > offset)) return true;
    if (deletes === undefined || h.sends.tombstones.length === 0) return false;
    if (h.sends.tombstone(v) && deletes.cleaned.has(h.where(f.tp))) return true;
    const deleted = deletes.lastTombstone(f.tp, key);
    if (deleted >= 0 && (offset < 0 || deleted > offset)) return true;
  }
  return false;
}
