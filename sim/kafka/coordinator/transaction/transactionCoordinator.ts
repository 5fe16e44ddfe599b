/**
 * The transaction coordinator a broker embeds: it serves the transactional ids whose `__transaction_state`
 * partition this broker leads. Each request is decided by a pure rule (initProducerId.ts, addPartitionsToTxn.ts,
 * endTxn.ts); a transition is written to the partition (acks=all) and applied only once committed. After
 * PrepareCommit/PrepareAbort the client is answered and the markers are written to every partition of the
 * transaction; then CompleteCommit/CompleteAbort is written. On becoming leader it reloads the partition and
 * resumes the markers of transactions left in a Prepare state. Timed-out transactions are fenced and aborted.
 * [src: core/.../transaction/TransactionCoordinator.scala, TransactionStateManager.scala, TransactionMarkerChannelManager.scala]
 */
import { NO_TIMER, type TimerId } from '../../../core/scheduler';
import { ms } from '../../../core/time';
import type { Trace } from '../../../core/trace';
import { defineKinds, list, nullable, num, str, type KindsOf } from '../../../core/traceSchema';
import type { KafkaError } from '../../errors';
import type {
  AddOffsetsToTxnRequest,
  AddOffsetsToTxnResponse,
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  EndTxnRequest,
  EndTxnResponse,
  InitProducerIdRequest,
  InitProducerIdResponse,
  TopicPartition,
} from '../../protocol';
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from '../../records';
import type { CoordinatorHost } from '../groupCoordinator';
import { appendErrorToResponseError } from '../classicGroupValidation';
import { partitionForGroup } from '../groupCoordinatorPartition';
import { tpKey } from '../../topicPartition';
import type { CoordinatorStorage } from '../storage';
import { decideAddPartitions, verifyPartitionsInTransaction } from './addPartitionsToTxn';
import type { CoordinatorDecision } from './coordinatorDecision';
import { decideEndTxn } from './endTxn';
import { decideInitProducerId } from './initProducerId';
import { isTimedOut } from './transactionExpiry';
import { replayTransactionLog, transactionRecord } from './transactionLog';
import {
  abortTransition,
  completeTransitionTo,
  metadataFromTransit,
  prepareComplete,
  prepareFenceProducerEpoch,
  type TransactionMetadata,
  type TransactionVersion,
  type TxnTransitMetadata,
} from './transactionMetadata';
import { partitionForTransactionalId } from './transactionStateTopic';

/** The transaction coordinator's decisions, as they commit. */
export const TXN_KINDS = defineKinds({
  /** A transition of a transactional id was committed to __transaction_state (Kafka's TransactionMetadata states). */
  'txn.state': {
    transactionalId: str,
    producerId: num,
    producerEpoch: num,
    from: str,
    to: str,
    partitions: list(str),
    /** What asked for it: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, markers, timeout. */
    reason: str,
  },
  /** The coordinator refused a request of a transactional producer (fencing, concurrent transactions, ...). */
  'txn.refused': { transactionalId: str, producerId: num, producerEpoch: num, request: str, error: str },
  /** The coordinator started the markers of a decided transaction. */
  'txn.markers': { transactionalId: str, producerId: num, producerEpoch: num, result: str, partitions: list(str) },
  /** The coordinator finished loading a partition of __transaction_state. */
  'txn.load': { partition: num, coordinatorEpoch: num, transactionalIds: list(str), records: num },
  /** The coordinator stopped serving a partition (it lost leadership). */
  'txn.unload': { partition: num, transactionalIds: list(str) },
  /** A transaction ran past transaction.timeout.ms: the coordinator fences its producer and aborts it. */
  'txn.timeout': { transactionalId: str, producerId: num, producerEpoch: num, startedMs: num, timeoutMs: num, coordinatorPartition: nullable(num) },
});

declare module '../../../core/trace' {
  interface TraceKinds extends KindsOf<typeof TXN_KINDS> {}
}

export interface TransactionCoordinatorConfig {
  readonly 'transaction.state.log.num.partitions': number;
  readonly 'transaction.max.timeout.ms': number;
  readonly 'transaction.abort.timed.out.transaction.cleanup.interval.ms': number;
  readonly 'offsets.topic.num.partitions': number;
  /** The cluster's finalized transaction.version feature. */
  readonly transactionVersion: TransactionVersion;
}

/** What the coordinator asks of the broker besides storage. */
export interface TransactionCoordinatorIo {
  /** A producer id from the broker's block, or undefined while a new block is being fetched. */
  nextProducerId(): number | undefined;
  /**
   * Writes the markers to the leaders of `partitions` (WriteTxnMarkers), retrying each partition until it is
   * written or no longer exists; `done` once all are. [TransactionMarkerChannelManager]
   */
  writeMarkers(
    m: { transactionalId: string; producerId: number; producerEpoch: number; coordinatorEpoch: number; result: 'COMMIT' | 'ABORT'; partitions: readonly TopicPartition[] },
    isCurrent: () => boolean,
    done: () => void,
  ): void;
}

export interface TransactionCoordinatorOptions {
  readonly host: CoordinatorHost;
  readonly trace: Trace;
  readonly config: TransactionCoordinatorConfig;
  readonly storage: CoordinatorStorage;
  readonly io: TransactionCoordinatorIo;
}

interface TxnShard {
  readonly partition: number;
  /** The leader epoch of the partition = the coordinator epoch markers carry. */
  readonly coordinatorEpoch: number;
  state: 'loading' | 'active';
  readonly metadata: Map<string, TransactionMetadata>;
  loadTimer: TimerId;
}

/** No producer id block yet: Kafka's ProducerIdManager throws CoordinatorLoadInProgressException. */
class NoProducerIdYet extends Error {}

function tpOf(key: string): TopicPartition {
  const i = key.lastIndexOf('-');
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) };
}

export type TransactionRequest = InitProducerIdRequest | AddPartitionsToTxnRequest | AddOffsetsToTxnRequest | EndTxnRequest;
export type TransactionResponse = InitProducerIdResponse | AddPartitionsToTxnResponse | AddOffsetsToTxnResponse | EndTxnResponse;

export class TransactionCoordinator {
  private readonly shards = new Map<number, TxnShard>();
  private abortTimer: TimerId = NO_TIMER;

  constructor(private readonly opts: TransactionCoordinatorOptions) {}

  private get nowMs(): number {
    return Math.floor(this.opts.host.now / 1000);
  }

  partitionFor(transactionalId: string): number {
    return partitionForTransactionalId(transactionalId, this.opts.config['transaction.state.log.num.partitions']);
  }

  /** Inspection (tests, UI): the metadata of an id this coordinator serves. */
  describe(transactionalId: string): TransactionMetadata | undefined {
    return this.shards.get(this.partitionFor(transactionalId))?.metadata.get(transactionalId);
  }

  // ---- leadership of __transaction_state partitions ----

  /** [src: TransactionCoordinator.scala `onElection`; TransactionStateManager `loadTransactionsForTxnTopicPartition`] */
  onBecomeLeader(partition: number, coordinatorEpoch: number): void {
    const existing = this.shards.get(partition);
    if (existing && existing.coordinatorEpoch >= coordinatorEpoch) return;
    if (existing) this.unload(existing);
    const shard: TxnShard = { partition, coordinatorEpoch, state: 'loading', metadata: new Map(), loadTimer: NO_TIMER };
    this.shards.set(partition, shard);
    const records = this.opts.storage.readLog(partition).length;
    shard.loadTimer = this.opts.host.setTimer(ms(5) + records, () => this.completeLoad(shard));
    this.scheduleAbortSweep();
  }

  onResign(partition: number): void {
    const shard = this.shards.get(partition);
    if (shard) this.unload(shard);
  }

  private completeLoad(shard: TxnShard): void {
    if (this.shards.get(shard.partition) !== shard) return;
    const log = this.opts.storage.readLog(shard.partition);
    for (const [id, t] of replayTransactionLog(log)) shard.metadata.set(id, metadataFromTransit(id, t));
    shard.state = 'active';
    this.opts.trace.emit('txn.load', this.opts.host.id, {
      partition: shard.partition,
      coordinatorEpoch: shard.coordinatorEpoch,
      transactionalIds: [...shard.metadata.keys()].sort(),
      records: log.length,
    });
    // Transactions decided by the previous coordinator whose markers may be missing: write them again.
    for (const m of [...shard.metadata.values()].sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : 1))) {
      if (m.state === 'PrepareCommit' || m.state === 'PrepareAbort') this.sendMarkers(shard, m.transactionalId);
    }
  }

  private unload(shard: TxnShard): void {
    this.shards.delete(shard.partition);
    this.opts.host.cancelTimer(shard.loadTimer);
    if (shard.state === 'active') this.opts.trace.emit('txn.unload', this.opts.host.id, { partition: shard.partition, transactionalIds: [...shard.metadata.keys()].sort() });
  }

  private isCurrent(shard: TxnShard): boolean {
    return this.shards.get(shard.partition) === shard && shard.state === 'active';
  }

  // ---- requests ----

  handle(request: TransactionRequest, reply: (r: TransactionResponse) => void): void {
    const id = request.transactionalId ?? '';
    const shard = this.shards.get(this.partitionFor(id));
    const unavailable: KafkaError | null = !shard ? 'NOT_COORDINATOR' : shard.state === 'loading' ? 'COORDINATOR_LOAD_IN_PROGRESS' : null;
    const cid = request.correlationId;
    switch (request.type) {
      case 'InitProducerId': {
        const send = (error: KafkaError, producerId = NO_PRODUCER_ID, producerEpoch = NO_PRODUCER_EPOCH) =>
          reply({ type: 'InitProducerIdResponse', correlationId: cid, error, producerId, producerEpoch });
        if (unavailable) return send(unavailable);
        const expected = request.producerId !== undefined && request.producerId >= 0 ? { producerId: request.producerId, epoch: request.producerEpoch ?? -1 } : undefined;
        const decision = this.decide(() =>
          decideInitProducerId({
            transactionalId: id,
            metadata: shard!.metadata.get(id),
            transactionTimeoutMs: request.transactionTimeoutMs ?? 60_000,
            maxTransactionTimeoutMs: this.opts.config['transaction.max.timeout.ms'],
            ...(expected ? { expected } : {}),
            nowMs: this.nowMs,
            serverTransactionVersion: this.opts.config.transactionVersion,
            generateProducerId: () => this.generateProducerId(),
          }),
        );
        return this.apply(shard!, id, decision, 'InitProducerId', (error, m) => {
          if (error !== 'NONE' || !m) return send(error);
          if (decision.kind === 'write' && decision.fencedOngoing) {
            // The old transaction is being aborted with the fenced epoch: the client retries. [handleInitProducerId]
            this.sendMarkers(shard!, id);
            return send('CONCURRENT_TRANSACTIONS');
          }
          send('NONE', m.producerId, m.producerEpoch);
        });
      }
      case 'AddPartitionsToTxn': {
        const results = (error: KafkaError) => request.partitions.map((p) => ({ topic: p.topic, partition: p.partition, error }));
        const send = (error: KafkaError, r = results(error)) => reply({ type: 'AddPartitionsToTxnResponse', correlationId: cid, error, results: r });
        if (unavailable) return send(unavailable);
        const keys = request.partitions.map((p) => tpKey(p.topic, p.partition));
        if (request.verifyOnly) {
          const v = verifyPartitionsInTransaction(shard!.metadata.get(id), request.producerId, request.producerEpoch, keys);
          if ('error' in v) return send(v.error);
          return send('NONE', request.partitions.map((p, i) => ({ topic: p.topic, partition: p.partition, error: v.perPartition.get(keys[i]!)! })));
        }
        const decision = decideAddPartitions({
          metadata: shard!.metadata.get(id),
          producerId: request.producerId,
          producerEpoch: request.producerEpoch,
          partitions: keys,
          clientTransactionVersion: request.transactionVersion,
          nowMs: this.nowMs,
        });
        return this.apply(shard!, id, decision, 'AddPartitionsToTxn', (error) => send(error), request);
      }
      case 'AddOffsetsToTxn': {
        const send = (error: KafkaError) => reply({ type: 'AddOffsetsToTxnResponse', correlationId: cid, error });
        if (unavailable) return send(unavailable);
        const offsetsPartition = `__consumer_offsets-${partitionForGroup(request.groupId, this.opts.config['offsets.topic.num.partitions'])}`;
        const decision = decideAddPartitions({
          metadata: shard!.metadata.get(id),
          producerId: request.producerId,
          producerEpoch: request.producerEpoch,
          partitions: [offsetsPartition],
          clientTransactionVersion: request.transactionVersion,
          nowMs: this.nowMs,
        });
        return this.apply(shard!, id, decision, 'AddOffsetsToTxn', (error) => send(error), request);
      }
      case 'EndTxn': {
        const send = (error: KafkaError, producerId = NO_PRODUCER_ID, producerEpoch = NO_PRODUCER_EPOCH) =>
          reply({ type: 'EndTxnResponse', correlationId: cid, error, producerId, producerEpoch });
        if (unavailable) return send(unavailable);
        const decision = this.decide(() =>
          decideEndTxn({
            metadata: shard!.metadata.get(id),
            producerId: request.producerId,
            producerEpoch: request.producerEpoch,
            result: request.committed ? 'COMMIT' : 'ABORT',
            isFromClient: true,
            clientTransactionVersion: request.transactionVersion,
            nowMs: this.nowMs,
            generateProducerId: () => this.generateProducerId(),
          }),
        );
        if (decision.kind === 'answer') return send('NONE', decision.producerId, decision.producerEpoch);
        return this.apply(
          shard!,
          id,
          decision,
          'EndTxn',
          (error, m) => {
            if (error !== 'NONE' || !m) return send(error);
            // Answered as soon as the decision is durable; the markers follow. [endTransaction `sendTxnMarkersCallback`]
            const tv2 = request.transactionVersion >= 2;
            send('NONE', tv2 ? m.producerId : NO_PRODUCER_ID, tv2 ? m.producerEpoch : NO_PRODUCER_EPOCH);
            this.sendMarkers(shard!, id);
          },
          request,
        );
      }
    }
  }

  private generateProducerId(): number {
    const id = this.opts.io.nextProducerId();
    if (id === undefined) throw new NoProducerIdYet();
    return id;
  }

  private decide(f: () => CoordinatorDecision): CoordinatorDecision {
    try {
      return f();
    } catch (e) {
      if (e instanceof NoProducerIdYet) return { kind: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' };
      throw e;
    }
  }

  /**
   * Writes a decided transition and applies it once committed; `done` gets the error and the applied
   * metadata. Refusals are traced with the identity the request carried.
   */
  private apply(
    shard: TxnShard,
    id: string,
    decision: CoordinatorDecision,
    reason: string,
    done: (error: KafkaError, m?: TransactionMetadata) => void,
    request?: { producerId: number; producerEpoch: number },
  ): void {
    if (decision.kind === 'error') {
      if (request) this.opts.trace.emit('txn.refused', this.opts.host.id, { transactionalId: id, producerId: request.producerId, producerEpoch: request.producerEpoch, request: reason, error: decision.error });
      return done(decision.error);
    }
    if (decision.kind === 'answer') return done('NONE', shard.metadata.get(id));
    this.write(shard, id, decision.metadata, decision.transit, reason, done, decision.fencedOngoing === true);
  }

  private write(
    shard: TxnShard,
    id: string,
    pending: TransactionMetadata,
    transit: TxnTransitMetadata,
    reason: string,
    done: (error: KafkaError, m?: TransactionMetadata) => void,
    isEpochFence = false,
  ): void {
    shard.metadata.set(id, pending);
    this.opts.storage.append(shard.partition, [transactionRecord(id, transit)], (appendError) => {
      // The error mapping of the group coordinator's writes is Kafka's for these too. [src: TransactionStateManager `appendTransactionToLog`]
      const error = appendErrorToResponseError(appendError);
      if (!this.isCurrent(shard)) return done('NOT_COORDINATOR');
      if (shard.metadata.get(id) !== pending) return done('CONCURRENT_TRANSACTIONS');
      if (error !== 'NONE') {
        // Nothing is applied: the pending state goes; a failed fence is remembered so the next one does not
        // bump again (its epoch was never returned). [src: TransactionCoordinator.scala `endTransaction` (hasFailedEpochFence)]
        const restored = abortTransition(pending);
        shard.metadata.set(id, isEpochFence ? { ...restored, hasFailedEpochFence: true } : restored);
        return done(error);
      }
      const applied = completeTransitionTo(pending, transit);
      shard.metadata.set(id, applied);
      this.opts.trace.emit('txn.state', this.opts.host.id, {
        transactionalId: id,
        producerId: applied.producerId,
        producerEpoch: applied.producerEpoch,
        from: pending.state,
        to: applied.state,
        partitions: [...transit.topicPartitions],
        reason,
      });
      done('NONE', applied);
    });
  }

  // ---- markers ----

  /** Writes the markers of a decided transaction, then CompleteCommit / CompleteAbort. [TransactionMarkerChannelManager `addTxnMarkersToSend`] */
  private sendMarkers(shard: TxnShard, id: string): void {
    const m = shard.metadata.get(id);
    if (!m || (m.state !== 'PrepareCommit' && m.state !== 'PrepareAbort')) return;
    const result = m.state === 'PrepareCommit' ? 'COMMIT' : 'ABORT';
    const partitions = m.topicPartitions.map(tpOf);
    this.opts.trace.emit('txn.markers', this.opts.host.id, { transactionalId: id, producerId: m.producerId, producerEpoch: m.producerEpoch, result, partitions: [...m.topicPartitions] });
    const complete = () => {
      if (!this.isCurrent(shard)) return;
      const now = shard.metadata.get(id);
      if (!now || now !== m) return;
      const prepared = prepareComplete(now, this.nowMs);
      this.write(shard, id, prepared.metadata, prepared.transit, 'markers', () => {});
    };
    if (partitions.length === 0) return complete();
    this.opts.io.writeMarkers(
      { transactionalId: id, producerId: m.producerId, producerEpoch: m.producerEpoch, coordinatorEpoch: shard.coordinatorEpoch, result, partitions },
      () => this.isCurrent(shard),
      complete,
    );
  }

  // ---- the timeout sweep ----

  private scheduleAbortSweep(): void {
    if (this.abortTimer !== NO_TIMER) return;
    const every = ms(this.opts.config['transaction.abort.timed.out.transaction.cleanup.interval.ms']);
    this.abortTimer = this.opts.host.setTimer(every, () => {
      this.abortTimer = NO_TIMER;
      this.abortTimedOutTransactions();
      if (this.shards.size > 0) this.scheduleAbortSweep();
    });
  }

  /** [src: TransactionCoordinator.scala `abortTimedOutTransactions`] */
  abortTimedOutTransactions(): void {
    const now = this.nowMs;
    for (const shard of [...this.shards.values()].sort((a, b) => a.partition - b.partition)) {
      if (shard.state !== 'active') continue;
      for (const id of [...shard.metadata.keys()].sort()) {
        const m = shard.metadata.get(id)!;
        if (!isTimedOut(m, now)) continue;
        this.opts.trace.emit('txn.timeout', this.opts.host.id, {
          transactionalId: id,
          producerId: m.producerId,
          producerEpoch: m.producerEpoch,
          startedMs: m.txnStartTimestamp,
          timeoutMs: m.txnTimeoutMs,
          coordinatorPartition: shard.partition,
        });
        const fence = prepareFenceProducerEpoch(m);
        const decision = this.decide(() =>
          decideEndTxn({
            metadata: fence.metadata,
            producerId: fence.transit.producerId,
            producerEpoch: fence.transit.producerEpoch,
            result: 'ABORT',
            isFromClient: false,
            clientTransactionVersion: this.opts.config.transactionVersion,
            nowMs: now,
            generateProducerId: () => this.generateProducerId(),
          }),
        );
        if (decision.kind !== 'write') continue;
        this.write(
          shard,
          id,
          decision.metadata,
          decision.transit,
          'timeout',
          (error) => {
            if (error === 'NONE') this.sendMarkers(shard, id);
          },
          true,
        );
      }
    }
  }
}
