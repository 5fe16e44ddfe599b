/**
 * Figures of one partition, `<figure>.<topic>-<partition>` (names.ts PARTITION_FIGURES): what one partition went
 * through, where the run's figures say only that some partition did. Only the partitions an expectation (or the
 * caller) names are followed, and a run that names none folds nothing here.
 */
import { FIGURE, type CheckDefinition } from './check';
import type { Handlers } from '../core/trace';
import { tpKey } from '../kafka/topicPartition';
import { Status } from './history/sends';
import type { PartitionFigureName } from './names';
import { result } from './report';
import { unavailabilityOf } from './unavailability';

/** What is followed of one named partition. */
interface Followed {
  elections: number;
  compactedAway: number;
  tombstonesRemoved: number;
  finalTombstones: number;
  /** When it last lost its leader (-1: it has one), and the longest leaderless span so far. */
  leaderlessSince: number;
  offline: { us: number; from: number; to: number } | null;
}

export const partitionFigures: CheckDefinition = {
  id: 'partitionFigures',
  source: FIGURE,
  make: (h, { figures }) => {
    if (figures.length === 0) return { report: () => {} };
    /** "topic-partition" (as h.where prints it) -> what is followed. */
    const followed = new Map<string, Followed>();
    for (const f of figures) {
      const where = tpKey(f.topic, f.partition);
      if (!followed.has(where)) followed.set(where, { elections: 0, compactedAway: 0, tombstonesRemoved: 0, finalTombstones: 0, leaderlessSince: -1, offline: null });
    }
    const of = (topic: string, partition: number): Followed | undefined => followed.get(tpKey(topic, partition));
    const noteOffline = (x: Followed, to: number) => {
      // A window opens on a partition that may already be leaderless: its span inside the window counts.
      const from = Math.max(x.leaderlessSince, h.windowStartUs);
      if (!x.offline || to - from > x.offline.us) x.offline = { us: to - from, from, to };
    };
    const leadership: Handlers = {
      'controller.election': (e) => {
        const x = of(e.topic, e.partition);
        if (!x) return;
        if (e.leader < 0) {
          if (x.leaderlessSince < 0) x.leaderlessSince = e.t;
        } else if (x.leaderlessSince >= 0) {
          noteOffline(x, e.t);
          x.leaderlessSince = -1;
        }
      },
    };
    return {
      beforeWindow: leadership,
      handlers: [
        leadership,
        {
          'controller.election': (e) => {
            const x = of(e.topic, e.partition);
            if (x) x.elections++;
          },
          'log.clean': (e) => {
            const x = of(e.topic, e.partition);
            if (!x) return;
            x.compactedAway += e.recordsRemoved;
            x.tombstonesRemoved += e.tombstonesRemoved;
          },
          'final.partition': () => {
            const log = h.finals.current!;
            const x = followed.get(h.where(log.final.tp));
            if (!x) return;
            for (let i = 0; i < log.values.length; i++) if (log.values[i] === -1) x.finalTombstones++;
          },
        },
      ],
      report: (out) => {
        const s = h.sends;
        const acked = new Map<string, number>();
        s.forEach((v) => {
          if (s.status(v) !== Status.Ok) return;
          const where = h.where(s.tp(v));
          if (followed.has(where)) acked.set(where, (acked.get(where) ?? 0) + 1);
        });
        for (const f of figures) {
          const where = tpKey(f.topic, f.partition);
          const name = `${f.figure}.${where}`;
          if (Object.hasOwn(out, name)) continue;
          const x = followed.get(where)!;
          const tp = h.tps.find(f.topic, f.partition);
          const final = tp < 0 ? undefined : h.finals.get(tp);
          switch (f.figure) {
            case 'acked':
              out[name] = result(acked.get(where) ?? 0);
              break;
            case 'unavailability.longest-ms':
            case 'unavailability.total-ms': {
              const u = unavailabilityOf(h, (tp) => h.where(tp) === where);
              out[name] = f.figure === 'unavailability.longest-ms' ? u.longest : u.total;
              break;
            }
            case 'partition.offline-ms': {
              if (x.leaderlessSince >= 0) noteOffline(x, h.endUs);
              x.leaderlessSince = -1;
              const o = x.offline;
              out[name] = result(o ? Math.round(o.us / 1000) : 0, o ? [`${where} had no leader from ${h.at(o.from)} to ${h.at(o.to)}`] : []);
              break;
            }
            case 'elections':
              out[name] = result(x.elections);
              break;
            case 'leader.final':
              out[name] = result(final ? final.leader : -1);
              break;
            case 'final.records':
              out[name] = result(final ? final.records : 0);
              break;
            case 'final.tombstones':
              out[name] = result(x.finalTombstones);
              break;
            case 'records.compacted-away':
              out[name] = result(x.compactedAway);
              break;
            case 'tombstones.removed':
              out[name] = result(x.tombstonesRemoved);
              break;
          }
        }
      },
    };
  },
};
