/**
 * What the logs kept: final.records (records in the final committed logs), segments.deleted (by retention, all
 * replicas), records.compacted-away (by the log cleaner, all replicas), replicas.diverged (replicas whose log, at
 * the end, holds a different record than the leader's at some offset below the high watermark), tombstones.removed
 * (tombstones the cleaner removed once delete.retention.ms had passed, all replicas), final.tombstones (null values
 * in the final committed logs).
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const logFigures: CheckDefinition = {
  id: 'logFigures',
  source: FIGURE,
  make: (h) => {
    let segmentsDeleted = 0;
    let compactedAway = 0;
    let tombstonesRemoved = 0;
    let finalTombstones = 0;
    return {
      handlers: {
        'final.partition': () => {
          finalTombstones += h.finals.current!.tombstones;
        },
        'log.retention': (e) => {
          segmentsDeleted += e.segments.length;
        },
        'log.clean': (e) => {
          compactedAway += e.recordsRemoved;
          tombstonesRemoved += e.tombstonesRemoved;
        },
      },
      report: (out) => {
        const diverged: string[] = [];
        for (const f of h.finals.byTp.values()) {
          for (const d of f.diverged) diverged.push(`broker ${d.broker} disagrees with the leader of ${h.where(f.tp)} at ${d.offsets.length} offset(s), first ${d.offsets[0]}`);
        }
        out['final.records'] = result(h.finals.records);
        out['segments.deleted'] = result(segmentsDeleted);
        out['records.compacted-away'] = result(compactedAway);
        out['tombstones.removed'] = result(tombstonesRemoved);
        out['final.tombstones'] = result(finalTombstones);
        out['replicas.diverged'] = result(diverged.length, diverged);
      },
    };
  },
};
