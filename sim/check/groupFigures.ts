/**
 * Figures per consumer group, named `<figure>.<group>` (e.g. `lag.final.billing`), so one scenario can compare
 * groups (an eager group beside a cooperative one, an under-provisioned group beside a sized one), and the
 * global figures made of them: lag.max (the worst group's), lag.final and re-reads (summed), rebalance.pause-ms
 * (the worst group's), unprocessed (over all groups). A consumer outside any group counts as a group of its own.
 */
import { FIGURE, type CheckDefinition } from './check';
import { BitSet } from './history/columns';
import { Status } from './history/sends';
import { GroupLag } from './groupLag';
import { UNPROCESSED } from './names';
import { RebalancePauses } from './rebalancePauses';
import { result } from './report';

export const groupFigures: CheckDefinition = {
  id: 'groupFigures',
  source: FIGURE,
  make: (h) => {
    const lag = new GroupLag(h);
    const pauses = new RebalancePauses((t) => h.at(t));
    /** group -> topic ids its members read. */
    const topicsOf = new Map<string, Set<number>>();
    /** consumer -> its group, from its polls and (overriding) from its assignments. */
    const pollGroup = new Map<string, string>();
    const assignedGroup = new Map<string, string>();
    const rebalances = new Map<string, number>();
    /** group -> partition -> offsets read; group -> records read, re-reads; group -> values read. */
    const readAt = new Map<string, Map<number, BitSet>>();
    const readCount = new Map<string, number>();
    const rereads = new Map<string, number>();
    const seenBy = new Map<string, BitSet>();
    /** consumer -> partition -> offsets processed (grouped at the end, by each consumer's group then). */
    const processed = new Map<string, Map<number, BitSet>>();

    const bitsOf = <K>(m: Map<K, Map<number, BitSet>>, k: K, tp: number): BitSet => {
      let byTp = m.get(k);
      if (!byTp) m.set(k, (byTp = new Map()));
      let bits = byTp.get(tp);
      if (!bits) byTp.set(tp, (bits = new BitSet()));
      return bits;
    };

    // The group of the records being handed over (a run's polls come in runs of one group).
    let pollGroupName = '';
    let pollSeen: BitSet | undefined;
    h.reads.onRecords((e, tp, offsets, values) => {
      if (offsets.length === 0) return;
      const g = e.group ?? e.node;
      if (g !== pollGroupName || pollSeen === undefined) {
        pollSeen = seenBy.get(g);
        if (!pollSeen) seenBy.set(g, (pollSeen = new BitSet()));
        pollGroupName = g;
      }
      const at = bitsOf(readAt, g, tp);
      const seen = pollSeen;
      let again = 0;
      for (let i = 0; i < offsets.length; i++) {
        if (!at.add(offsets[i]!)) again++;
        const v = values[i]!;
        if (v >= 0) seen.add(v);
      }
      if (again > 0) rereads.set(g, (rereads.get(g) ?? 0) + again);
    });

    return {
      handlers: [
        lag.handlers,
        pauses.handlers,
        {
        'consumer.poll': (e) => {
          const g = e.group ?? e.node;
          pollGroup.set(e.node, g);
          let topics = topicsOf.get(g);
          if (!topics) topicsOf.set(g, (topics = new Set()));
          let n = 0;
          for (const r of e.records) {
            topics.add(h.tps.topics.id(r.topic));
            n += r.offsets.length;
          }
          readCount.set(g, (readCount.get(g) ?? 0) + n);
        },
        'consumer.assignment': (e) => {
          if (e.group) assignedGroup.set(e.node, e.group);
        },
        'group.rebalance': (e) => {
          rebalances.set(e.group, (rebalances.get(e.group) ?? 0) + 1);
          if (!topicsOf.has(e.group)) topicsOf.set(e.group, new Set());
        },
        // A consumer group (KIP-848) rebalances at each epoch bump while it has members, which is what Kafka's
        // consumer-group rebalance metric counts. [GroupMetadataManager.java `consumerGroupHeartbeat`: CONSUMER_GROUP_REBALANCES_SENSOR_NAME]
        'group.consumer.epoch': (e) => {
          if (e.members > 0) rebalances.set(e.group, (rebalances.get(e.group) ?? 0) + 1);
        },
        'consumer.processed': (e) => {
          const bits = bitsOf(processed, e.node, h.tps.id(e.topic, e.partition));
          for (const o of e.offsets) bits.add(o);
        },
        },
      ],
      report: (out) => {
        // A tombstone has no value to find: the group read it if it read a null at its offset (acks=0: cannot tell, read).
        const tombstoneReadBy = (g: string, v: number) => h.sends.offset(v) < 0 || readAt.get(g)?.get(h.sends.tp(v))?.has(h.sends.offset(v)) === true;
        const groupOf = (node: string) => assignedGroup.get(node) ?? pollGroup.get(node) ?? node;
        const doneBy = new Map<string, Map<number, BitSet>[]>();
        for (const [node, byTp] of processed) {
          const g = groupOf(node);
          let list = doneBy.get(g);
          if (!list) doneBy.set(g, (list = []));
          list.push(byTp);
        }
        const effects = pauses.finish(Math.max(0, h.lastEventUs));
        const paused = effects.groups;
        const s = h.sends;
        let unprocessedAll = 0;
        const unprocessedExamples: string[] = [];
        let totalRereads = 0;
        let worstPause = 0;
        let worstLag = 0;
        let totalLag = 0;
        for (const g of [...topicsOf.keys()].sort()) {
          const topics = topicsOf.get(g)!;
          const seen = seenBy.get(g);
          const done = doneBy.get(g) ?? [];
          // Per partition (tp id), the offsets each of the group's members processed there.
          const doneAt: BitSet[][] = [];
          for (const byTp of done) for (const [tp, bits] of byTp) (doneAt[tp] ??= []).push(bits);
          const isDone = (tp: number, o: number) => {
            const list = doneAt[tp];
            if (list !== undefined) for (let i = 0; i < list.length; i++) if (list[i]!.has(o)) return true;
            return false;
          };
          const unseen: number[] = [];
          const unprocessed: number[] = [];
          if (topics.size > 0) {
            for (let i = 0, n = s.orderSpan; i < n; i++) {
              const v = s.sentAt(i);
              if (v < 0 || s.status(v) !== Status.Ok) continue;
              const tp = s.tp(v);
              // A transaction that never committed is not there to be read (read_committed) or processed.
              if (!topics.has(h.tps.topic(tp)) || h.transactions.isUncommitted(v)) continue;
              if (s.tombstone(v) ? !tombstoneReadBy(g, v) : !seen?.has(v)) unseen.push(v);
              // Whether the group processed the position of the record (where a leader put it, for acks=0).
              const o = s.offset(v);
              if (o >= 0 ? !isDone(tp, o) : h.appends.has(v) && !isDone(h.appends.tp(v), h.appends.offset(v))) unprocessed.push(v);
            }
          }
          unprocessedAll += unprocessed.length;
          if (unprocessed[0] !== undefined) unprocessedExamples.push(`group ${g} never processed ${h.value(unprocessed[0])} (${unprocessed.length} records)`);
          const lagFinal = lag.lagOf(g, (tp) => h.finals.get(tp)?.highWatermark ?? lag.hw(tp) ?? 0);
          const lagMax = Math.max(lag.max.get(g) ?? 0, lagFinal);
          const p = paused.get(g);
          const pause = p && p.partitions.size > 0 ? Math.round(p.totalMs / p.partitions.size) : 0;
          const reread = rereads.get(g) ?? 0;
          const where = (v: number) => `${h.value(v)} (${h.where(s.tp(v))} offset ${s.offset(v)})`;
          out[`lag.final.${g}`] = result(lagFinal);
          out[`lag.max.${g}`] = result(lagMax);
          out[`rebalance.pause-ms.${g}`] = result(pause, p?.examples ?? []);
          out[`rebalances.${g}`] = result(rebalances.get(g) ?? 0);
          out[`partitions.moved.${g}`] = result(p?.moved ?? 0, p?.movedExamples ?? []);
          const stopped = [...effects.members].filter(([, m]) => m.group === g && Math.round(m.totalMs) > 0).map(([c, m]) => `${c} paused ${Math.round(m.totalMs)} ms`).sort();
          out[`members.paused.${g}`] = result(stopped.length, stopped);
          out[`records-read.${g}`] = result(readCount.get(g) ?? 0);
          out[`re-reads.${g}`] = result(reread);
          out[`unseen.${g}`] = result(unseen.length, unseen.slice(0, 3).map(where));
          out[`unprocessed.${g}`] = result(unprocessed.length, unprocessed.slice(0, 3).map(where));
          totalRereads += reread;
          worstPause = Math.max(worstPause, pause);
          worstLag = Math.max(worstLag, lagMax);
          totalLag += lagFinal;
        }
        out[UNPROCESSED] = result(unprocessedAll, unprocessedExamples);
        out['re-reads'] = result(totalRereads);
        out['rebalance.pause-ms'] = result(worstPause);
        out['lag.max'] = result(worstLag);
        out['lag.final'] = result(totalLag);
        for (const [consumer, m] of [...effects.members].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          out[`member.pause-ms.${consumer}`] = result(Math.round(m.totalMs), m.examples);
        }
      },
    };
  },
};
