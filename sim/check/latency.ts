/**
 * latency.p50-ms, latency.p99-ms: send-to-acknowledgement latency of acknowledged records (acks=0 records,
 * counted as sent at once, are left out); e2e.p99-ms: send-to-first-read latency of the records consumers read.
 * Percentiles by nearest rank, in ms with two decimals. Each latency is taken when it is known (the send's
 * answer, the value's first read), so the report only selects; a trace whose sends change after their answer,
 * or that reads a value before sending it, is judged from the final history instead.
 */
import { FIGURE, type CheckDefinition } from './check';
import type { History } from './history/history';
import { IntColumn, NumberList } from './history/columns';
import { Status } from './history/sends';
import { ms2, percentile, result, type CheckResult } from './report';

export const latency: CheckDefinition = {
  id: 'latency',
  source: FIGURE,
  make: (h) => {
    const s = h.sends;
    // Chunked columns rather than one doubling array: a run's latencies cost 4 bytes each, with no slack.
    const acked = new Latencies();
    const readAfter = new Latencies();
    let readBeforeSent = false;
    s.onComplete((a) => {
      if (a.status !== Status.Ok || a.acks0) return;
      for (let k = 0; k < a.length; k++) acked.push(a.doneUs - a.invokeUs[k]!);
    });
    h.reads.onFirstRead((v) => {
      if (s.status(v) === Status.None) readBeforeSent = true;
      else readAfter.push(h.reads.firstReadUs(v) - s.invokeUs(v));
    });
    return {
      report: (out) => {
        const [ack, e2e] = s.irregular || readBeforeSent ? fromHistory(h) : [acked.toArray(), readAfter.toArray()];
        Object.assign(out, figures(ack, e2e));
      },
    };
  },
};

function figures(ack: Float64Array | Int32Array, e2e: Float64Array | Int32Array): Record<string, CheckResult> {
  return {
    'latency.p50-ms': result(ms2(percentile(ack, 50))),
    'latency.p99-ms': result(ms2(percentile(ack, 99))),
    'e2e.p99-ms': result(ms2(percentile(e2e, 99))),
  };
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
