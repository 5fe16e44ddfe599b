/**
 * Share-group figures from the partition leaders' share-partition events: how often records were delivered
 * (`share.deliveries.max`, with the histogram of delivery counts in its examples), `share.redelivered` (records
 * delivered more than once), `share.archived` (records given up on, by cause: the delivery-count limit, REJECT,
 * retention), `share.lock-expired` (acquisitions whose lock ran out before the member acknowledged) and
 * `share.acks-refused` (acknowledgements of records the member no longer held) and `share.members-idle` (share
 * consumers that never received a record).
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const shareDeliveries: CheckDefinition = {
  id: 'shareDeliveries',
  source: FIGURE,
  make: () => {
    /** group/tp -> offset -> highest delivery count. */
    const deliveries = new Map<string, Map<number, number>>();
    const archived = new Map<string, number>();
    const archivedExamples: string[] = [];
    let lockExpired = 0;
    const lockExamples: string[] = [];
    let refused = 0;
    const refusedExamples: string[] = [];
    const members = new Set<string>();
    const busy = new Set<string>();
    return {
      handlers: {
        'share.acquire': (e) => {
          const k = `${e.group} ${e.topic}-${e.partition}`;
          let m = deliveries.get(k);
          if (!m) deliveries.set(k, (m = new Map()));
          e.offsets.forEach((o, i) => m.set(o, Math.max(m.get(o) ?? 0, e.deliveryCounts[i]!)));
        },
        'share.transition': (e) => {
          if (e.cause === 'lock-expired') {
            lockExpired += e.offsets.length;
            if (lockExamples.length < 5) lockExamples.push(`${e.topic}-${e.partition} offsets ${e.offsets.join(', ')}: the lock of ${e.memberId} expired (group ${e.group}, delivery ${e.deliveryCounts[0]})`);
          }
          if (e.to === 'ARCHIVED' && e.cause !== 'gap') {
            const reason = e.cause === 'reject' ? 'rejected' : e.cause === 'log-start' ? 'below the log start' : 'delivery-count limit';
            archived.set(reason, (archived.get(reason) ?? 0) + e.offsets.length);
            if (archivedExamples.length < 5) archivedExamples.push(`${e.topic}-${e.partition} offset ${e.offsets.join(', ')} archived (${reason}) after ${e.deliveryCounts[0]} deliveries, group ${e.group}`);
          }
        },
        'share.ack.refused': (e) => {
          refused += e.offsets.length;
          if (refusedExamples.length < 5) refusedExamples.push(`${e.topic}-${e.partition} offsets ${e.offsets.join(', ')}: ${e.type} of ${e.memberId} refused with ${e.error} (group ${e.group})`);
        },
        'share.assignment': (e) => members.add(e.node),
        'share.poll': (e) => busy.add(e.node),
      },
      report: (out) => {
        let max = 0;
        let redelivered = 0;
        const histogram = new Map<number, number>();
        const maxExamples: string[] = [];
        for (const [k, m] of deliveries) {
          for (const [o, n] of m) {
            histogram.set(n, (histogram.get(n) ?? 0) + 1);
            if (n > 1) redelivered++;
            if (n > max) {
              max = n;
              maxExamples.length = 0;
            }
            if (n === max && maxExamples.length < 3) maxExamples.push(`${k} offset ${o} was delivered ${n} times`);
          }
        }
        const hist = [...histogram].sort(([a], [b]) => a - b).map(([n, c]) => `${c} record(s) delivered ${n} time(s)`);
        out['share.deliveries.max'] = result(max, [...maxExamples, ...hist]);
        out['share.redelivered'] = result(redelivered, hist);
        const total = [...archived.values()].reduce((a, b) => a + b, 0);
        out['share.archived'] = result(total, [...[...archived].map(([r, n]) => `${n} archived: ${r}`), ...archivedExamples]);
        out['share.lock-expired'] = result(lockExpired, lockExamples);
        out['share.acks-refused'] = result(refused, refusedExamples);
        const idle = [...members].filter((m) => !busy.has(m)).sort();
        out['share.members-idle'] = result(idle.length, idle.map((m) => `${m} received no record`));
      },
    };
  },
};
