/**
 * lost-write: acknowledged records missing from the final committed log of the healed cluster (Jepsen's
 * name; this form needs the simulator's truth, the final logs, where Jepsen infers it from reads: see
 * lostWriteJepsen.ts). A record that left the log legitimately does not count: retention deleted its segment,
 * or compaction kept a newer record of its key. Each lost write comes with its story (lostWriteStory.ts).
 */
import { type CheckDefinition } from './check';
import { BitSet } from './history/columns';
import type { FinalPartition } from './history/finals';
import type { History } from './history/history';
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
    return {
      handlers: {
        ...story.handlers,
        'final.partition': () => {
          const log = h.finals.current!;
          const tp = log.final.tp;
          for (let i = 0; i < log.values.length; i++) {
            const v = log.values[i]!;
            if (v >= 0 && h.sends.status(v) !== Status.None && lostTp(h, v) === tp) inFinal.add(v);
          }
        },
      },
      report: (out) => {
        const lost: number[] = [];
        if (h.finals.byTp.size > 0) {
          h.sends.forEach((v) => {
            if (h.sends.status(v) !== Status.Ok || inFinal.has(v)) return;
            const f = h.finals.get(lostTp(h, v));
            if (f && !goneLegitimately(h, v, recordOffset(h, v), f)) lost.push(v);
          });
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
  return h.appends.has(v) ? h.tps.withPartition(h.sends.tp(v), h.tps.partition(h.appends.tp(v))) : h.sends.tp(v);
}

/** Its offset: the one its producer was told, else where a leader first appended it, else -1. */
export function recordOffset(h: History, v: number): number {
  const o = h.sends.offset(v);
  return o >= 0 ? o : h.appends.has(v) ? h.appends.offset(v) : -1;
}

/** Whether a record that is not in the final log left it legitimately (retention, or a newer value for its key under compaction). */
export function goneLegitimately(h: History, v: number, offset: number, f: FinalPartition): boolean {
  if (offset >= 0 && offset < f.logStartOffset) return true;
  const key = h.sends.key(v);
  if (f.compacted && key >= 0) {
    const last = f.lastOffsetOfKey.get(key);
    if (last !== undefined && (offset < 0 || last > offset)) return true;
  }
  return false;
}
