import type { Handlers } from '../../core/trace';
import { BitSet } from './columns';
import type { Names } from './ids';
import { Status, type Sends } from './sends';
import type { ValueIds } from './values';

/**
 * What the history knows of transactions: which producers are transactional (their producer.id names a
 * transactional.id), which values a committed or an aborted transaction held (producer.txn, when the
 * coordinator answered EndTxn), and which consumers read with isolation.level=read_committed
 * (consumer.isolation). A transactional producer's value no committed transaction holds is uncommitted: it
 * aborted, or its transaction never ended, and nobody is owed it.
 */
export class Transactions {
  /** Producers (node ids) with a transactional.id. */
  private readonly producers = new Set<number>();
  private readonly committed = new BitSet();
  private readonly aborted = new BitSet();
  /** Consumers (node ids) with isolation.level=read_committed. */
  readonly readCommitted = new Set<number>();
  committedCount = 0;
  abortedCount = 0;

  constructor(
    private readonly values: ValueIds,
    private readonly nodes: Names,
    private readonly sends: Sends,
  ) {}

  readonly handlers: Handlers = {
    'producer.id': (e) => {
      if (e.transactionalId !== undefined) this.producers.add(this.nodes.id(e.node));
    },
    'producer.txn': (e) => {
      const commit = e.result === 'commit';
      const into = commit ? this.committed : this.aborted;
      for (const v of e.values) into.add(this.values.id(v));
      if (commit) this.committedCount++;
      else this.abortedCount++;
    },
    'consumer.isolation': (e) => {
      if (e.level === 'read_committed') this.readCommitted.add(this.nodes.id(e.node));
    },
  };

  /** Some producer of the run is transactional. */
  get any(): boolean {
    return this.producers.size > 0;
  }

  /** The value was sent by a transactional producer. */
  isTransactional(v: number): boolean {
    return this.producers.size > 0 && this.sends.status(v) !== Status.None && this.producers.has(this.sends.producer(v));
  }

  /** A transactional producer's value that no committed transaction holds (aborted, or never ended). */
  isUncommitted(v: number): boolean {
    return this.isTransactional(v) && !this.committed.has(v);
  }

  /** The value was in a transaction the coordinator confirmed aborted. */
  isAborted(v: number): boolean {
    return this.aborted.has(v);
  }
}
