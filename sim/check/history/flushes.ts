import type { Handlers } from '../../core/trace';
import { firstAtOrAfter, IntColumn } from './columns';
import type { Names, TopicPartitions } from './ids';

/** One fsync of a log, as the trace told it (log.flush). */
export interface Flush {
  readonly seq: number;
  readonly t: number;
  readonly tp: number;
  /** Offsets below it are durable once it completes. */
  readonly upTo: number;
  readonly completesAt: number;
  /** The node that flushed (its id in the history's node names). */
  readonly node: number;
}

/**
 * Every fsync of a partition's log (log.flush), one column per field in trace order: what was durable when a
 * record was acknowledged, and what a lost write's story says was fsynced.
 */
export class Flushes {
  private readonly seqs = new IntColumn();
  private readonly times = new IntColumn();
  private readonly tpIds = new IntColumn();
  private readonly upTos = new IntColumn();
  private readonly completes = new IntColumn();
  private readonly nodeIds = new IntColumn();
  count = 0;

  constructor(
    private readonly tps: TopicPartitions,
    private readonly nodes: Names,
  ) {}

  readonly handlers: Handlers = {
    'log.flush': (e) => {
      const i = this.count++;
      this.seqs.set(i, e.seq);
      this.times.set(i, e.t);
      this.tpIds.set(i, this.tps.id(e.topic, e.partition));
      this.upTos.set(i, e.upTo);
      this.completes.set(i, e.completesAt);
      this.nodeIds.set(i, this.nodes.id(e.node));
    },
  };

  get(i: number): Flush {
    return { seq: this.seqs.get(i), t: this.times.get(i), tp: this.tpIds.get(i), upTo: this.upTos.get(i), completesAt: this.completes.get(i), node: this.nodeIds.get(i) };
  }

  tp(i: number): number {
    return this.tpIds.get(i);
  }

  upTo(i: number): number {
    return this.upTos.get(i);
  }

  completesAt(i: number): number {
    return this.completes.get(i);
  }

  /** The first traced at or after time `t`. */
  firstFrom(t: number): number {
    return firstAtOrAfter(this.times, this.count, t);
  }
}
