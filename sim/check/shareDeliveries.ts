/**
 * Share-group figures from the partition leaders' share-partition events: how often records were delivered
 * (`share.deliveries.max`, with the histogram of delivery counts in its examples), `share.redelivered` (records
 * delivered more than once), `share.archived` (records given up on, by cause: the delivery-count limit, REJECT,
 * retention), `share.lock-expired` (acquisitions whose lock ran out before the member acknowledged) and
 * `share.in-flight.max` (the largest in-flight window, SPEO - SPSO + 1, after an acquisition), `share.acks-refused` (acknowledgements of records the member no longer held) and `share.members-idle` (share
 * consumers that never received a record); `share.dead-lettered` (DLQ writes, KIP-1191, by reason) and
 * `share.dead-letter-failed` (DLQ writes that failed: those records were archived without one).
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
    let inFlightMax = 0;
    let inFlightExample = '';
    let refused = 0;
    const refusedExamples: string[] = [];
    const members = new Set<string>();
    const busy = new Set<string>();
    /** Why each record still ARCHIVING went there (its DLQ write decides how it ends). */
    const archivingReason = new Map<string, string>();
    const deadLettered = new Map<string, number>();
    /** group/tp/offset -> DLQ writes, to name the records written more than once. */
    const dlqWrites = new Map<string, number>();
    const deadLetterExamples: string[] = [];
    let dlqFailed = 0;
    const dlqFailedExamples: string[] = [];
    const reasonText = (r: string): string => (r === 'rejected' ? 'rejected' : 'delivery-count limit');
    return {
      handlers: {
        'share.acquire': (e) => {
          const k = `${e.group} ${e.topic}-${e.partition}`;
          let m = deliveries.get(k);
          if (!m) deliveries.set(k, (m = new Map()));
          e.offsets.forEach((o, i) => m.set(o, Math.max(m.get(o) ?? 0, e.deliveryCounts[i]!)));
          const inFlight = e.speo - e.spso + 1;
          if (inFlight > inFlightMax) {
            inFlightMax = inFlight;
            inFlightExample = `${e.topic}-${e.partition} of group ${e.group} held ${inFlight} records in flight (SPSO ${e.spso}, SPEO ${e.speo})`;
          }
        },
        'share.transition': (e) => {
          if (e.cause === 'lock-expired') {
            lockExpired += e.offsets.length;
            if (lockExamples.length < 5) lockExamples.push(`${e.topic}-${e.partition} offsets ${e.offsets.join(', ')}: the lock of ${e.memberId} expired (group ${e.group}, delivery ${e.deliveryCounts[0]})`);
          }
          const k = `${e.group} ${e.topic}-${e.partition}`;
          if (e.to === 'ARCHIVING') for (const o of e.offsets) archivingReason.set(`${k} ${o}`, e.cause === 'reject' ? 'rejected' : 'delivery-count limit');
          if (e.to === 'ARCHIVED' && e.cause !== 'gap') {
            const dlq = e.cause === 'dead-letter' || e.cause === 'dead-letter-failed';
            const reason = dlq
              ? `${archivingReason.get(`${k} ${e.offsets[0]}`) ?? 'delivery-count limit'}, ${e.cause === 'dead-letter' ? 'dead-lettered' : 'DLQ write failed'}`
              : e.cause === 'reject'
                ? 'rejected'
                : e.cause === 'log-start'
                  ? 'below the log start'
                  : 'delivery-count limit';
            if (dlq) for (const o of e.offsets) archivingReason.delete(`${k} ${o}`);
            archived.set(reason, (archived.get(reason) ?? 0) + e.offsets.length);
            if (archivedExamples.length < 5) archivedExamples.push(`${e.topic}-${e.partition} offset ${e.offsets.join(', ')} archived (${reason}) after ${e.deliveryCounts[0]} deliveries, group ${e.group}`);
          }
        },
        'share.dead-letter': (e) => {
          const reason = reasonText(e.reason);
          deadLettered.set(reason, (deadLettered.get(reason) ?? 0) + 1);
          const k = `${e.group} ${e.topic}-${e.partition} offset ${e.offset}`;
          const n = (dlqWrites.get(k) ?? 0) + 1;
          dlqWrites.set(k, n);
          if (deadLetterExamples.length < 5 || n > 1) deadLetterExamples.push(`${e.topic}-${e.partition} offset ${e.offset} written to ${e.dlqTopic}-${e.dlqPartition} (${reason}, ${e.deliveryCount} deliveries, group ${e.group})${n > 1 ? `: its write number ${n}` : ''}`);
        },
        'share.dead-letter.failed': (e) => {
          dlqFailed++;
          if (dlqFailedExamples.length < 5) dlqFailedExamples.push(`${e.topic}-${e.partition} offset ${e.offset} not written to ${e.dlqTopic || '(no DLQ topic)'}: ${e.error}, ${e.message}`);
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
        const writes = [...deadLettered.values()].reduce((a, b) => a + b, 0);
        const twice = [...dlqWrites.values()].filter((n) => n > 1).length;
        out['share.dead-lettered'] = result(writes, [
          ...[...deadLettered].map(([r, n]) => `${n} dead-lettered: ${r}`),
          ...(twice > 0 ? [`${twice} record(s) written more than once (ARCHIVING rerun after a leader change)`] : []),
          ...deadLetterExamples.slice(-8),
        ]);
        out['share.dead-letter-failed'] = result(dlqFailed, dlqFailedExamples);
        out['share.lock-expired'] = result(lockExpired, lockExamples);
        out['share.acks-refused'] = result(refused, refusedExamples);
        out['share.in-flight.max'] = result(inFlightMax, inFlightExample ? [inFlightExample] : []);
        const idle = [...members].filter((m) => !busy.has(m)).sort();
        out['share.members-idle'] = result(idle.length, idle.map((m) => `${m} received no record`));
      },
    };
  },
};
