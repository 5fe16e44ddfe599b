/**
 * A producer's metrics [clients/.../producer/internals/SenderMetricsRegistry.java, Sender.SenderMetrics]:
 * records sent, retried and failed, and the latency of its Produce requests, per sample interval.
 */
import type { Micros } from '../../../core/time';
import { Meter } from '../../metrics/meters';

export class ProducerMetrics {
  readonly recordsSent: Meter;
  readonly recordsRetried: Meter;
  readonly recordsFailed: Meter;
  private latencySumMs = 0;
  private latencyCount = 0;
  private latencyMaxMs = 0;

  constructor(startUs: Micros) {
    this.recordsSent = new Meter(startUs);
    this.recordsRetried = new Meter(startUs);
    this.recordsFailed = new Meter(startUs);
  }

  /** A Produce request got its answer (or failed) `ms` after it was sent [Sender `recordLatency`]. */
  requestLatency(ms: number): void {
    this.latencySumMs += ms;
    this.latencyCount++;
    if (ms > this.latencyMaxMs) this.latencyMaxMs = ms;
  }

  sample(nowUs: Micros): Record<string, number> {
    const out: Record<string, number> = {
      'record-send-rate': this.recordsSent.read(nowUs),
      'record-retry-rate': this.recordsRetried.read(nowUs),
      'record-error-rate': this.recordsFailed.read(nowUs),
    };
    if (this.latencyCount > 0) {
      out['request-latency-avg'] = this.latencySumMs / this.latencyCount;
      out['request-latency-max'] = this.latencyMaxMs;
    }
    this.latencySumMs = 0;
    this.latencyCount = 0;
    this.latencyMaxMs = 0;
    return out;
  }
}
