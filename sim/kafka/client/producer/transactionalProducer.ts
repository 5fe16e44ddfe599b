/**
 * The transactional half of Kafka's producer [clients/.../producer/internals/TransactionManager.java,
 * KafkaProducer.java `initTransactions`, `beginTransaction`, `commitTransaction`, `abortTransaction`], driven by
 * an application loop: initTransactions (FindCoordinator, then InitProducerId with the transactional.id, which
 * fences older instances), then transactions of `transactionSize` records — begin, AddPartitionsToTxn, the
 * records, flush, EndTxn commit (or abort, with the workload's abort probability, or after a failed send).
 * With transaction.version 2 the coordinator bumps the epoch at every EndTxn and the next transaction uses it,
 * and the client sends neither AddPartitionsToTxn nor AddOffsetsToTxn: partition leaders and the group
 * coordinator add their partitions to the transaction themselves (KIP-890 part 2).
 * PRODUCER_FENCED is fatal: the instance stops, and every later send fails.
 */
import type { Random } from '../../../core/random';
import { ms, type Micros } from '../../../core/time';
import type { Trace } from '../../../core/trace';
import { defineKinds, list, num, str, type KindsOf } from '../../../core/traceSchema';
import type { ProducerConfig } from '../../config/configs';
import type { KafkaError } from '../../errors';
import type { NetworkClient, Outcome } from '../../net/networkClient';
import type {
  AddOffsetsToTxnResponse,
  AddPartitionsToTxnResponse,
  EndTxnResponse,
  FindCoordinatorResponse,
  InitProducerIdResponse,
  TopicPartition,
  TxnOffsetCommitResponse,
} from '../../protocol';
import { brokerActorId } from '../metadataCache';
import type { ProducerBatch } from './producerBatch';
import type { TransactionManager } from './transactionManager';

export const TRANSACTIONAL_PRODUCER_KINDS = defineKinds({
  /**
   * A transaction ended as the coordinator confirmed: `values` are the records it held; `requests` the
   * transaction-protocol requests the client sent for it (AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit,
   * EndTxn, retries included): what transaction.version 2's implicit add saves (KIP-890 part 2).
   */
  'producer.txn': { transactionalId: str, result: str, producerId: num, producerEpoch: num, values: list(str), requests: num },
  /**
   * A fatal error: the instance stops. PRODUCER_FENCED (a newer instance with its transactional.id, or the
   * coordinator's timeout abort, bumped the epoch) or another error it cannot recover from
   * (INVALID_TRANSACTION_TIMEOUT: transaction.timeout.ms above the broker's transaction.max.timeout.ms, ...).
   */
  'producer.fenced': { transactionalId: str, producerId: num, producerEpoch: num, error: str, request: str },
});

declare module '../../../core/trace' {
  interface TraceKinds extends KindsOf<typeof TRANSACTIONAL_PRODUCER_KINDS> {}
}

/** [TransactionManager.State] */
export type TransactionalState = 'UNINITIALIZED' | 'INITIALIZING' | 'READY' | 'ADDING_PARTITIONS' | 'IN_TRANSACTION' | 'COMMITTING_TRANSACTION' | 'ABORTING_TRANSACTION' | 'FATAL_ERROR';

export interface TransactionalHost {
  readonly id: string;
  readonly trace: Trace;
  readonly config: ProducerConfig;
  readonly net: NetworkClient;
  readonly txn: TransactionManager<ProducerBatch>;
  readonly random: Random;
  /** Brokers to ask FindCoordinator, in order. */
  brokers(): readonly number[];
  partitionCount(topic: string): number | null;
  /** KafkaProducer.send() of one record. */
  send(r: AppRecord): void;
  /** A value id's text (the trace names records by text). */
  valueText(valueId: number): string;
  /** A send refused at once (the producer is fenced): the application gets the exception. */
  refuse(r: AppRecord, error: KafkaError): void;
  setTimer(delay: Micros, fn: () => void): unknown;
  wakeSender(): void;
  /** A fenced application stops producing (it closes the producer, as ProducerFencedException asks). */
  stopApplication(): void;
}

export interface AppRecord {
  readonly topic: string;
  readonly key: string | null;
  /** The value's id in the producer's payload table. */
  readonly valueId: number;
  readonly valueBytes: number;
  readonly partition?: number;
  /** Sent as a tombstone (a null value). */
  readonly tombstone?: boolean;
}

/** Errors after which the request is retried, the coordinator looked up again for the NOT_COORDINATOR family. */
const RETRIABLE: ReadonlySet<string> = new Set(['CONCURRENT_TRANSACTIONS', 'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR', 'REQUEST_TIMED_OUT', 'NETWORK_EXCEPTION', 'UNKNOWN_TOPIC_OR_PARTITION']);
const REDISCOVER: ReadonlySet<string> = new Set(['COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR', 'REQUEST_TIMED_OUT', 'NETWORK_EXCEPTION']);
/** Fatal for the instance [TransactionManager `isFatalException`]. */
const FATAL: ReadonlySet<string> = new Set(['PRODUCER_FENCED', 'INVALID_PRODUCER_ID_MAPPING', 'INVALID_TXN_STATE', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'INVALID_TRANSACTION_TIMEOUT']);
/** TxnOffsetCommit errors that make the transaction abortable: the consumer is no longer the group's member at that generation (KIP-447). [TransactionManager `TxnOffsetCommitHandler` (CommitFailedException)] */
const OFFSETS_FENCED: ReadonlySet<string> = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'FENCED_INSTANCE_ID', 'REBALANCE_IN_PROGRESS']);

/** The consumer's group as KafkaConsumer.groupMetadata() gives it to sendOffsetsToTransaction. */
export interface ConsumerGroupMetadata {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

/** A short backoff for CONCURRENT_TRANSACTIONS (the previous transaction is completing). [TransactionManager `ADD_PARTITIONS_RETRY_BACKOFF_MS`] */
const CONCURRENT_BACKOFF_MS = 20;

export class TransactionalProducer {
  state: TransactionalState = 'UNINITIALIZED';
  private coordinator = -1;
  private readonly queue: AppRecord[] = [];
  /** Records sent in the current transaction and not yet completed (acknowledged or failed for good). */
  private outstanding = 0;
  /** The value ids of the current transaction's records. */
  private values: number[] = [];
  private failed = false;
  private abort = false;
  private inputDone = false;
  /** EndTxn sent for the current transaction (a late completion must not send a second one). */
  private endTxnSent = false;
  /** Driven by an application (consume-transform-produce) through begin / send / sendOffsets / end, not by a workload. */
  private appDriven = false;
  private onReadyWaiters: (() => void)[] = [];
  private onEnded: ((committed: boolean) => void) | null = null;
  private groupCoordinator = -1;
  /** Transaction-protocol requests sent for the current transaction (InitProducerId not counted). */
  private requestsInTransaction = 0;
  private readonly transactionalId: string;
  constructor(
    private readonly host: TransactionalHost,
    private readonly transactionSize: number,
    private readonly abortProbability: number,
    /** The finalized transaction.version the client uses: 2 bumps the epoch at every EndTxn (KIP-890 part 2). [src: TransactionManager `isTransactionV2Enabled`] */
    private readonly transactionVersion: 0 | 1 | 2 = 2,
  ) {
    this.transactionalId = host.config['transactional.id']!;
    host.txn.isTransactional = true;
  }

  /** KafkaProducer.initTransactions(), at start-up. */
  initTransactions(): void {
    if (this.state !== 'UNINITIALIZED') return;
    this.state = 'INITIALIZING';
    this.withCoordinator(() => this.sendInitProducerId());
  }

  /** The application produced a record: it joins the current transaction, or waits for the next one. */
  onRecord(r: AppRecord): void {
    if (this.state === 'FATAL_ERROR') return this.host.refuse(r, 'PRODUCER_FENCED');
    this.queue.push(r);
    this.pump();
  }

  /**
   * The application has no more records (its workload ended, or the scenario's quiet period began): it ends
   * the open transaction with what it holds rather than leave it to the transaction timeout.
   */
  endOfInput(): void {
    this.inputDone = true;
    this.pump();
  }

  /** `records` of this producer completed or failed for good. */
  onCompleted(records: number, error: string | null): void {
    if (this.state === 'UNINITIALIZED' || this.state === 'FATAL_ERROR') return;
    this.outstanding = Math.max(0, this.outstanding - records);
    if (error !== null && (this.state === 'IN_TRANSACTION' || this.state === 'COMMITTING_TRANSACTION' || this.state === 'ABORTING_TRANSACTION')) {
      // A failed send makes the transaction abortable; a fenced epoch shows on the EndTxn that follows. [TransactionManager `transitionToAbortableError`]
      this.failed = true;
      if (this.state === 'IN_TRANSACTION' && !this.appDriven) this.endTransaction();
    }
    this.maybeSendEndTxn();
  }

  private get retryBackoffUs(): Micros {
    return ms(this.host.config['retry.backoff.ms']);
  }

  private retry(error: string, again: () => void): void {
    if (REDISCOVER.has(error)) this.coordinator = -1;
    const delay = error === 'CONCURRENT_TRANSACTIONS' ? ms(CONCURRENT_BACKOFF_MS) : this.retryBackoffUs;
    this.host.setTimer(delay, () => (this.coordinator < 0 ? this.withCoordinator(again) : again()));
  }

  private fatal(error: string, request: string): void {
    if (this.state === 'FATAL_ERROR') return;
    this.state = 'FATAL_ERROR';
    const pe = this.host.txn.producerIdAndEpoch;
    this.host.trace.emit('producer.fenced', this.host.id, { transactionalId: this.transactionalId, producerId: pe.producerId, producerEpoch: pe.epoch, error, request });
    for (const r of this.queue.splice(0)) this.host.refuse(r, 'PRODUCER_FENCED');
    this.host.stopApplication();
  }

  // ---- FindCoordinator ----

  private withCoordinator(then: () => void): void {
    if (this.state === 'FATAL_ERROR') return;
    if (this.coordinator >= 0) return then();
    const brokers = this.host.brokers();
    const node = brokers[0];
    if (node === undefined) return void this.host.setTimer(this.retryBackoffUs, () => this.withCoordinator(then));
    this.host.net.send<{ type: 'FindCoordinator'; key: string; keyType: 'TRANSACTION' }, FindCoordinatorResponse>(
      brokerActorId(node),
      { type: 'FindCoordinator', key: this.transactionalId, keyType: 'TRANSACTION' },
      { timeoutMs: this.host.config['request.timeout.ms'] },
      (o) => {
        if (o.ok && o.response.error === 'NONE' && o.response.nodeId >= 0) {
          this.coordinator = o.response.nodeId;
          return then();
        }
        this.host.setTimer(this.retryBackoffUs, () => this.withCoordinator(then));
      },
    );
  }

  private request<R extends { error: KafkaError }>(name: string, body: { type: string } & Record<string, unknown>, onResponse: (r: R) => void, again: () => void): void {
    if (name !== 'InitProducerId') this.requestsInTransaction++;
    this.host.net.send<typeof body, R>(brokerActorId(this.coordinator), body, { timeoutMs: this.host.config['request.timeout.ms'] }, (o: Outcome<R>) => {
      if (this.state === 'FATAL_ERROR') return;
      const error = o.ok ? o.response.error : o.error;
      if (error === 'NONE' && o.ok) return onResponse(o.response);
      if (FATAL.has(error) || error === 'INVALID_PRODUCER_EPOCH') return this.fatal(error, name);
      if (RETRIABLE.has(error)) return this.retry(error, again);
      // Anything else the client cannot recover from here.
      this.fatal(error, name);
    });
  }

  // ---- InitProducerId ----

  private sendInitProducerId(): void {
    this.request<InitProducerIdResponse>(
      'InitProducerId',
      { type: 'InitProducerId', transactionalId: this.transactionalId, transactionTimeoutMs: this.host.config['transaction.timeout.ms'] },
      (r) => {
        this.host.txn.setProducerIdAndEpoch(r.producerId, r.producerEpoch);
        this.host.trace.emit('producer.id', this.host.id, { producerId: r.producerId, producerEpoch: r.producerEpoch, reason: 'InitProducerId', transactionalId: this.transactionalId });
        this.state = 'READY';
        for (const f of this.onReadyWaiters.splice(0)) f();
        this.pump();
      },
      () => this.sendInitProducerId(),
    );
  }

  // ---- the application loop ----

  private pump(): void {
    // An application drives its own transactions (begin / send / end); the workload loop stays out of them.
    if (this.appDriven) return;
    if (this.state === 'READY' && this.queue.length > 0) return this.beginTransaction();
    if (this.state !== 'IN_TRANSACTION') return;
    while (this.queue.length > 0 && this.values.length < this.transactionSize) {
      const r = this.queue.shift()!;
      this.values.push(r.valueId);
      this.outstanding++;
      this.host.send(r);
    }
    if (this.values.length >= this.transactionSize || (this.inputDone && this.queue.length === 0 && this.values.length > 0)) this.endTransaction();
  }

  /** beginTransaction() and the AddPartitionsToTxn of the partitions the transaction may write. */
  private beginTransaction(): void {
    this.state = 'ADDING_PARTITIONS';
    this.values = [];
    this.failed = false;
    const first = this.queue[0]!;
    const n = this.host.partitionCount(first.topic);
    if (n === null) {
      // The topic's metadata is not there yet: try again shortly.
      this.state = 'READY';
      this.host.wakeSender();
      return void this.host.setTimer(this.retryBackoffUs, () => this.pump());
    }
    const partitions = first.partition !== undefined ? [{ topic: first.topic, partition: first.partition }] : Array.from({ length: n }, (_, p) => ({ topic: first.topic, partition: p }));
    this.addPartitions(partitions, () => this.pump());
  }

  /** commitTransaction() / abortTransaction(): flush, then EndTxn. */
  private endTransaction(): void {
    if (this.state !== 'IN_TRANSACTION') return;
    this.abort = this.failed || (this.abortProbability > 0 && this.host.random.chance(this.abortProbability));
    this.state = this.abort ? 'ABORTING_TRANSACTION' : 'COMMITTING_TRANSACTION';
    this.host.wakeSender();
    this.maybeSendEndTxn();
  }

  private maybeSendEndTxn(): void {
    if ((this.state !== 'COMMITTING_TRANSACTION' && this.state !== 'ABORTING_TRANSACTION') || this.outstanding > 0 || this.endTxnSent) return;
    this.endTxnSent = true;
    // A commit after a failed send is refused by the client; the application aborts. [KafkaProducer.commitTransaction]
    if (this.failed) {
      this.abort = true;
      this.state = 'ABORTING_TRANSACTION';
    }
    const committed = !this.abort;
    const send = (): void => {
      const pe = this.host.txn.producerIdAndEpoch;
      this.request<EndTxnResponse>(
        'EndTxn',
        { type: 'EndTxn', transactionalId: this.transactionalId, producerId: pe.producerId, producerEpoch: pe.epoch, committed, transactionVersion: this.transactionVersion },
        (r) => {
          const pe2 = this.host.txn.producerIdAndEpoch;
          // Transaction version 2: the epoch the coordinator bumped to is the next transaction's.
          if (r.producerEpoch >= 0 && r.producerId >= 0) this.host.txn.setProducerIdAndEpoch(r.producerId, r.producerEpoch);
          this.host.trace.emit('producer.txn', this.host.id, {
            transactionalId: this.transactionalId,
            result: committed ? 'commit' : 'abort',
            producerId: pe2.producerId,
            producerEpoch: pe2.epoch,
            values: this.values.map((v) => this.host.valueText(v)),
            requests: this.requestsInTransaction,
          });
          this.requestsInTransaction = 0;
          this.values = [];
          this.endTxnSent = false;
          this.state = 'READY';
          const ended = this.onEnded;
          this.onEnded = null;
          ended?.(committed);
          this.pump();
        },
        send,
      );
    };
    this.withCoordinator(send);
  }

  // ---- driven by an application: KafkaProducer's transactional calls ----

  /** `f` runs once initTransactions has completed (at once when it has). */
  whenReady(f: () => void): void {
    this.appDriven = true;
    if (this.state === 'READY') f();
    else if (this.state !== 'FATAL_ERROR') this.onReadyWaiters.push(f);
  }

  /**
   * beginTransaction(), and the AddPartitionsToTxn of `partitions` (the client adds a partition before its first
   * write to it; here the application names the partitions it will write up front). `then` runs in the transaction.
   */
  begin(partitions: readonly TopicPartition[], then: () => void): void {
    this.appDriven = true;
    if (this.state !== 'READY') throw new Error(`${this.host.id}: beginTransaction() in state ${this.state}`);
    this.state = 'ADDING_PARTITIONS';
    this.values = [];
    this.failed = false;
    this.addPartitions(partitions, then);
  }

  /**
   * AddPartitionsToTxn of `partitions` at the coordinator (retried while retriable); `then` runs in the transaction.
   * Transaction version 2 sends none: the partitions are only noted, and each leader adds its own when the first
   * transactional batch arrives (KIP-890 part 2). [src: TransactionManager.java `maybeAddPartition` (isTransactionV2Enabled: tracked locally, transactionStarted)]
   */
  private addPartitions(partitions: readonly TopicPartition[], then: () => void): void {
    if (this.transactionVersion >= 2) {
      this.state = 'IN_TRANSACTION';
      return then();
    }
    const send = (): void => {
      const pe = this.host.txn.producerIdAndEpoch;
      this.request<AddPartitionsToTxnResponse>(
        'AddPartitionsToTxn',
        { type: 'AddPartitionsToTxn', transactionalId: this.transactionalId, producerId: pe.producerId, producerEpoch: pe.epoch, partitions, verifyOnly: false, transactionVersion: this.transactionVersion },
        (r) => {
          const bad = r.results.find((x) => x.error !== 'NONE');
          if (bad) {
            if (RETRIABLE.has(bad.error)) return this.retry(bad.error, send);
            return this.fatal(bad.error, 'AddPartitionsToTxn');
          }
          this.state = 'IN_TRANSACTION';
          then();
        },
        send,
      );
    };
    this.withCoordinator(send);
  }

  /** send() inside the transaction. */
  send(r: AppRecord): void {
    if (this.state === 'FATAL_ERROR') return this.host.refuse(r, 'PRODUCER_FENCED');
    this.values.push(r.valueId);
    this.outstanding++;
    this.host.send(r);
  }

  /**
   * sendOffsetsToTransaction(offsets, groupMetadata): AddOffsetsToTxn to the transaction coordinator (the
   * group's __consumer_offsets partition joins the transaction; version 1 only), then TxnOffsetCommit to the group
   * coordinator with the member id and generation (KIP-447). `done` gets NONE, or the abortable error (the consumer was
   * fenced out of its group). [KafkaProducer.sendOffsetsToTransaction; TransactionManager `AddOffsetsToTxnHandler`, `TxnOffsetCommitHandler`]
   */
  sendOffsets(offsets: readonly { topic: string; partition: number; offset: number; leaderEpoch: number }[], group: ConsumerGroupMetadata, done: (error: KafkaError) => void): void {
    const addOffsets = (): void => {
      const pe = this.host.txn.producerIdAndEpoch;
      this.request<AddOffsetsToTxnResponse>(
        'AddOffsetsToTxn',
        { type: 'AddOffsetsToTxn', transactionalId: this.transactionalId, producerId: pe.producerId, producerEpoch: pe.epoch, groupId: group.groupId, transactionVersion: this.transactionVersion },
        () => this.withGroupCoordinator(group.groupId, commit),
        addOffsets,
      );
    };
    const again = (): void => {
      this.groupCoordinator = -1;
      this.host.setTimer(this.retryBackoffUs, () => this.withGroupCoordinator(group.groupId, commit));
    };
    const commit = (): void => {
      const pe = this.host.txn.producerIdAndEpoch;
      const request = {
        type: 'TxnOffsetCommit' as const,
        transactionalId: this.transactionalId,
        groupId: group.groupId,
        producerId: pe.producerId,
        producerEpoch: pe.epoch,
        generationId: group.generationId,
        memberId: group.memberId,
        groupInstanceId: group.groupInstanceId,
        offsets: offsets.map((o) => ({ ...o, metadata: '' })),
        ...(this.transactionVersion >= 2 ? { transactionVersion: 2 as const } : {}),
      };
      this.requestsInTransaction++;
      this.host.net.send<typeof request, TxnOffsetCommitResponse>(brokerActorId(this.groupCoordinator), request, { timeoutMs: this.host.config['request.timeout.ms'] }, (o) => {
        if (this.state === 'FATAL_ERROR') return;
        if (!o.ok) return again();
        const bad = o.response.partitions.find((p) => p.error !== 'NONE');
        if (!bad) return done('NONE');
        if (bad.error === 'PRODUCER_FENCED' || bad.error === 'INVALID_PRODUCER_EPOCH') return this.fatal(bad.error, 'TxnOffsetCommit');
        // TRANSACTION_ABORTABLE: version 2's implicit add found no transaction to join. [TransactionManager `TxnOffsetCommitHandler` (abortableError)]
        if (OFFSETS_FENCED.has(bad.error) || bad.error === 'TRANSACTION_ABORTABLE') return done(bad.error);
        // Version 2's add met another change of the transaction in progress (a leader adding its partition, the
        // last transaction's markers): the same coordinator, again after retry.backoff.ms. [TransactionManager `TxnOffsetCommitHandler` (retriable: reenqueue)]
        if (bad.error === 'CONCURRENT_TRANSACTIONS') return void this.host.setTimer(this.retryBackoffUs, commit);
        again();
      });
    };
    if (offsets.length === 0) return done('NONE');
    // Version 2 sends no AddOffsetsToTxn: the group coordinator adds its partition on the TxnOffsetCommit (v5).
    // [src: TransactionManager.java `sendOffsetsToTransaction` (isTransactionV2Enabled: txnOffsetCommitHandler directly)]
    if (this.transactionVersion >= 2) return this.withGroupCoordinator(group.groupId, commit);
    this.withCoordinator(addOffsets);
  }

  /** commitTransaction() (or abortTransaction()): flush, then EndTxn; `done` gets whether it committed. */
  end(commit: boolean, done: (committed: boolean) => void): void {
    if (this.state !== 'IN_TRANSACTION') throw new Error(`${this.host.id}: ${commit ? 'commit' : 'abort'}Transaction() in state ${this.state}`);
    this.onEnded = done;
    this.abort = !commit || this.failed;
    this.state = this.abort ? 'ABORTING_TRANSACTION' : 'COMMITTING_TRANSACTION';
    this.host.wakeSender();
    this.maybeSendEndTxn();
  }

  private withGroupCoordinator(groupId: string, then: () => void): void {
    if (this.state === 'FATAL_ERROR') return;
    if (this.groupCoordinator >= 0) return then();
    const node = this.host.brokers()[0];
    if (node === undefined) return void this.host.setTimer(this.retryBackoffUs, () => this.withGroupCoordinator(groupId, then));
    this.host.net.send<{ type: 'FindCoordinator'; key: string; keyType: 'GROUP' }, FindCoordinatorResponse>(
      brokerActorId(node),
      { type: 'FindCoordinator', key: groupId, keyType: 'GROUP' },
      { timeoutMs: this.host.config['request.timeout.ms'] },
      (o) => {
        if (o.ok && o.response.error === 'NONE' && o.response.nodeId >= 0) {
          this.groupCoordinator = o.response.nodeId;
          return then();
        }
        this.host.setTimer(this.retryBackoffUs, () => this.withGroupCoordinator(groupId, then));
      },
    );
  }
}
