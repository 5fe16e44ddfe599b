/**
 * The two instruments an actor keeps for its metrics, read once per sample: a meter (events, with the rate
 * over the time since the last read, as Prometheus `rate()` over one scrape interval shows a Meter's Count) and
 * a histogram of the durations since the last read, with its percentiles. Kafka's Yammer meters report
 * exponentially weighted 1/5/15-minute rates and its histograms an exponentially decaying reservoir; over one
 * short sampling interval these read as the plain rate and percentiles of that interval.
 */
import type { Micros } from '../../core/time';

export class Meter {
  /** Events since the process started (Kafka's `Count`). */
  count = 0;
  private lastCount = 0;
  private lastReadUs: Micros;

  constructor(startUs: Micros) {
    this.lastReadUs = startUs;
  }

  mark(n = 1): void {
    this.count += n;
  }

  /** Events per second since the last read (0 over no time), and starts the next interval. */
  read(nowUs: Micros): number {
    const elapsed = nowUs - this.lastReadUs;
    const rate = elapsed > 0 ? ((this.count - this.lastCount) * 1e6) / elapsed : 0;
    this.lastCount = this.count;
    this.lastReadUs = nowUs;
    return rate;
  }
}

export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly mean: number;
}

export class IntervalHistogram {
  private values: number[] = [];

  record(v: number): void {
    this.values.push(v);
  }

  /** The percentiles of what was recorded since the last read (null when nothing was), and starts over. */
  read(): Percentiles | null {
    const v = this.values;
    if (v.length === 0) return null;
    this.values = [];
    v.sort((a, b) => a - b);
    const at = (q: number) => v[Math.min(v.length - 1, Math.ceil(q * v.length) - 1)]!;
    let sum = 0;
    for (const x of v) sum += x;
    return { count: v.length, p50: at(0.5), p99: at(0.99), p999: at(0.999), max: v[v.length - 1]!, mean: sum / v.length };
  }
}
