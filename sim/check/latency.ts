/**
 * latency.p50-ms, latency.p99-ms: send-to-acknowledgement latency of acknowledged records (acks=0 records,
 * counted as sent at once, are left out); e2e.p99-ms: send-to-first-read latency of the records consumers read.
 * Percentiles by nearest rank, in ms with two decimals. Acknowledgement latencies are taken as the answers come
 * (a batch at a time, their send times at hand); first-read latencies in one pass over the sends at the end, in
 * send order, where both times are read from columns walked in order rather than looked up, cold, at each first
 * read. A trace whose sends change after their answer is judged from the final history.
 */
import { FIGURE, type CheckDefinition } from './check';
import type { History } from './history/history';
import { IntColumn, NumberList } from './history/columns';
import { Status } from './history/sends';
import { ms2, percentile, rank, result, type CheckResult } from './report';

export const latency: CheckDefinition = {
  id: 'latency',
  source: FIGURE,
  make: (h) => {
    const s = h.sends;
    // Chunked columns rather than one doubling array: a run's latencies cost 4 bytes each, with no slack.
    const acked = new Latencies();
    s.onComplete((a) => {
      if (a.status !== Status.Ok || a.acks0) return;
      for (let k = 0; k < a.length; k++) acked.push(a.doneUs - a.invokeUs[k]!);
    });
    return {
      report: (out) => {
        const [ack, e2e] = s.irregular ? fromHistory(h) : [acked.toArray(), firstReadLatencies(h)];
        Object.assign(out, figures(ack, e2e));
      },
    };
  },
};

function figures(ack: Float64Array | Int32Array, e2e: Float64Array | Int32Array): Record<string, CheckResult> {
  const p50 = percentile(ack, 50);
  return {
    'latency.p50-ms': result(ms2(p50)),
    // The select for p50 left every latency from its rank on at or above it: p99 is selected among those.
    'latency.p99-ms': result(ms2(percentile(ack, 99, rank(ack.length, 50)))),
    'e2e.p99-ms': result(ms2(percentile(e2e, 99))),
  };
}

/**
 * Send-to-first-read latencies of the values read, in send order: what folding each first read gives (a
 * percentile does not depend on the order), for a value read before it was sent too, as the final history has it.
 */
function firstReadLatencies(h: History): Int32Array | Float64Array {
  const s = h.sends;
  const r = h.reads;
  const out = new NumberList();
  for (let i = 0, n = s.orderSpan; i < n; i++) {
    const v = s.sentAt(i);
    if (v >= 0 && r.seen(v)) out.push(r.firstReadUs(v) - s.invokeUs(v));
  }
  return out.view();
}

/** The latencies from the final history: one pass over every send. */
function fromHistory(h: History): [Float64Array | Int32Array, Float64Array | Int32Array] {
  const s = h.sends;
  const acked = new NumberList();
  const readAfter = new NumberList();
  s.forEach((v) => {
    if (s.status(v) === Status.Ok && s.acks(v) !== '0') acked.push(s.doneUs(v) - s.invokeUs(v));
    if (h.reads.seen(v)) readAfter.push(h.reads.firstReadUs(v) - s.invokeUs(v));
  });
  return [acked.view(), readAfter.view()];
}

/** Latencies in microseconds, in the order taken. */
class Latencies {
  private readonly column = new IntColumn(0);
  private length = 0;

  push(us: number): void {
    this.column.set(this.length++, us);
  }

  toArray(): Float64Array {
    const out = new Float64Array(this.length);
    this.column.copyTo(this.length, out);
    return out;
  }
}
