/**
 * lso-stall-ms: the longest time a partition leader's last stable offset stayed at one offset below its high
 * watermark (replica.lso with a first unstable offset) — an open transaction holding back every read_committed
 * consumer of the partition. It ends when the LSO moves, or when the replica stops leading.
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const lsoStall: CheckDefinition = {
  id: 'lsoStall',
  source: FIGURE,
  make: (h) => {
    /** "topic-partition on broker b" -> since when its LSO has been pinned, and where. */
    const pinnedSince = new Map<string, { since: number; lso: number }>();
    let longest = { us: 0, example: '' };
    const note = (where: string, p: { since: number; lso: number }, until: number, open: boolean): void => {
      if (until - p.since <= longest.us) return;
      longest = {
        us: until - p.since,
        example: `${where}: the LSO stayed at ${p.lso}, below the high watermark, for ${((until - p.since) / 1000).toFixed(0)} ms${open ? ' (still at the end)' : ''}`,
      };
    };
    const release = (where: string, t: number): void => {
      const pinned = pinnedSince.get(where);
      if (pinned === undefined) return;
      pinnedSince.delete(where);
      note(where, pinned, t, false);
    };
    return {
      handlers: {
        'replica.lso': (e) => {
          const where = `${e.topic}-${e.partition} on broker ${e.broker}`;
          const pinned = pinnedSince.get(where);
          if (pinned !== undefined && pinned.lso === e.lso) return;
          release(where, e.t);
          if (e.firstUnstableOffset !== null) pinnedSince.set(where, { since: e.t, lso: e.lso });
        },
        // A replica that stops leading no longer holds anyone back.
        'replica.role': (e) => {
          if (e.role !== 'leader' && pinnedSince.size > 0) release(`${e.topic}-${e.partition} on broker ${e.broker}`, e.t);
        },
      },
      report: (out) => {
        for (const [where, p] of pinnedSince) note(where, p, h.endUs, true);
        out['lso-stall-ms'] = result(Math.round(longest.us / 1000), longest.example ? [longest.example] : []);
      },
    };
  },
};
