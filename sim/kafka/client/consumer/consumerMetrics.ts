/**
 * A consumer's metrics [clients/.../consumer/internals/FetchMetricsRegistry.java (records-lag-max,
 * records-lead-min, records-consumed-rate), ConsumerCoordinator metrics (assigned-partitions)]: lag and lead from
 * each assigned partition's position against what the last fetch said of its log, per sample.
 */
import type { Micros } from '../../../core/time';
import { Meter } from '../../metrics/meters';
import type { PolledRecord } from './fetchBuffer';
import type { PartitionState } from './subscriptionState';

export class ConsumerMetrics {
  readonly consumed: Meter;
  /** Per partition: the timestamp (ms) of the last record poll() returned. */
  private readonly lastTimestamp = new Map<string, number>();

  constructor(startUs: Micros) {
    this.consumed = new Meter(startUs);
  }

  polled(records: readonly PolledRecord[], key: (r: PolledRecord) => string): void {
    this.consumed.mark(records.length);
    // Records come grouped by partition: the last of each run is its partition's latest.
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      const next = records[i + 1];
      if (next === undefined || next.partition !== r.partition || next.topic !== r.topic) this.lastTimestamp.set(key(r), r.timestamp);
    }
  }

  /**
   * records-lag: the partition's high watermark (from the last fetch) minus the position; records-lead: the
   * position minus its log start offset [FetchCollector: `subscriptions.partitionLag`, `partitionLead`]. A
   * partition without a position or a fetched high watermark yet has neither.
   */
  sample(nowUs: Micros, assigned: readonly PartitionState[]): Record<string, number> {
    let lagMax = -1;
    let leadMin = Infinity;
    let lagTime = -1;
    for (const s of assigned) {
      if (s.position === null || s.highWatermark < 0) continue;
      const lag = Math.max(0, s.highWatermark - s.position);
      lagMax = Math.max(lagMax, lag);
      if (s.logStartOffset >= 0) leadMin = Math.min(leadMin, s.position - s.logStartOffset);
      const ts = this.lastTimestamp.get(s.key);
      if (lag === 0) lagTime = Math.max(lagTime, 0);
      else if (ts !== undefined) lagTime = Math.max(lagTime, Math.max(0, nowUs / 1000 - ts));
    }
    const out: Record<string, number> = {
      'records-consumed-rate': this.consumed.read(nowUs),
      'assigned-partitions': assigned.length,
    };
    if (lagMax >= 0) out['records-lag-max'] = lagMax;
    if (leadMin !== Infinity) out['records-lead-min'] = leadMin;
    if (lagTime >= 0) out['lag-time-ms'] = lagTime;
    return out;
  }
}
