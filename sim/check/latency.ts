/**
 * latency.p50-ms, latency.p99-ms: send-to-acknowledgement latency of acknowledged records (acks=0 records,
 * counted as sent at once, are left out); e2e.p99-ms: send-to-first-read latency of the records consumers read.
 * Percentiles by nearest rank, in ms with two decimals.
 */
import { FIGURE, type CheckDefinition } from './check';
import { Status } from './history/sends';
import { ms2, percentile, result } from './report';

export const latency: CheckDefinition = {
  id: 'latency',
  source: FIGURE,
  make: (h) => ({
    report: (out) => {
      const s = h.sends;
      const acked: number[] = [];
      const readAfter: number[] = [];
      s.forEach((v) => {
        if (s.status(v) === Status.Ok && s.acks(v) !== '0') acked.push(s.doneUs(v) - s.invokeUs(v));
        if (h.reads.seen(v)) readAfter.push(h.reads.firstReadUs(v) - s.invokeUs(v));
      });
      const ack = Float64Array.from(acked);
      const e2e = Float64Array.from(readAfter);
      out['latency.p50-ms'] = result(ms2(percentile(ack, 50)));
      out['latency.p99-ms'] = result(ms2(percentile(ack, 99)));
      out['e2e.p99-ms'] = result(ms2(percentile(e2e, 99)));
    },
  }),
};
