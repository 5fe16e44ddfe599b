import type { KafkaError } from '../errors';
import type { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, ProduceRequest, TopicPartition } from '../protocol';
import { defineKinds, num, str, type KindsOf } from '../../core/traceSchema';
import { ms, type Micros } from '../../core/time';
import {
  ADD_PARTITIONS_RETRY_BACKOFF_MS,
  leaderAddsPartition,
  leaderAsksCoordinator,
  needsVerification,
  produceErrorOfVerification,
  produceSupportedOperation,
  transactionalProduceVersion,
  retryAddOnConcurrent,
  type ProducerAtPartition,
} from './rules/transactionVerification';

/** A leader refused a transactional batch its coordinator did not verify (KIP-890 part 1) or add (part 2). */
export const TRANSACTION_VERIFICATION_KINDS = defineKinds({
  'txn.unverified': { topic: str, partition: num, broker: num, producerId: num, producerEpoch: num, error: str },
});

declare module '../../core/trace' {
  interface TraceKinds extends KindsOf<typeof TRANSACTION_VERIFICATION_KINDS> {}
}

/** What the verifier needs of its broker. */
export interface VerifierHost {
  readonly brokerId: number;
  readonly trace: { emit(kind: 'txn.unverified', node: string, e: { topic: string; partition: number; broker: number; producerId: number; producerEpoch: number; error: string }): void };
  readonly nodeId: string;
  /** The producer's state at a partition this broker leads; null when it does not lead it (the append will say so). */
  producerAt(topic: string, partition: number, producerId: number): ProducerAtPartition | undefined | null;
  /** Asks the transactional id's coordinator (this broker's own, or another over the network); `done` once. */
  askCoordinator(transactionalId: string, request: Omit<AddPartitionsToTxnRequest, 'correlationId'>, done: (r: AddPartitionsToTxnResponse | { error: KafkaError; results: [] }) => void): void;
  /** The simulated clock, in ms. */
  nowMs(): number;
  setTimer(delay: Micros, fn: () => void): void;
  /** The broker's request.timeout.ms (it caps the CONCURRENT_TRANSACTIONS retries of an add). */
  readonly requestTimeoutMs: number;
}

/** The coordinator's answer for one partition: its own error, or the top-level one. */
function errorFor(r: AddPartitionsToTxnResponse | { error: KafkaError; results: [] }, tp: TopicPartition): KafkaError {
  if (r.error !== 'NONE') return r.error;
  return r.results.find((x) => x.topic === tp.topic && x.partition === tp.partition)?.error ?? 'NONE';
}

/** Partition index of a Produce request -> the error it is refused with, without being appended. */
export type Refusals = ReadonlyMap<number, KafkaError>;
const NONE: Refusals = new Map();

/**
 * The leader's side of KIP-890 part 1 [src: core/.../server/AddPartitionsToTxnManager.scala; ReplicaManager.scala
 * `appendRecords` with transaction verification; storage/.../log/VerificationGuard.java]: a Produce whose
 * transactional batches start a transaction at a partition first asks the coordinator (AddPartitionsToTxn,
 * verifyOnly) whether those partitions are in the producer's ongoing transaction; the unverified ones are refused.
 * A marker for the producer written meanwhile voids the verification (the guard), so a verified batch cannot slip
 * in after its transaction ended. While a request is being verified its connection is muted, as Kafka's socket
 * server does with every request in process: later Produce requests on it wait their turn, in order.
 */
export class TransactionVerifier {
  /** `topic-partition/producerId` -> the guard of the verification in progress or done. */
  private readonly guards = new Map<string, object>();
  /** Connections with a request being verified, and the requests that came after it. */
  private readonly muted = new Map<string, { req: ProduceRequest; proceed: (refused: Refusals) => void }[]>();

  constructor(
    private readonly host: VerifierHost,
    private readonly enabled: boolean,
  ) {}

  /** Calls `proceed` (now or once verified) with the partitions to refuse. */
  verify(from: string, req: ProduceRequest, proceed: (refused: Refusals) => void): void {
    if (req.transactionalId === undefined || req.acks === 0) return proceed(NONE);
    if (!leaderAsksCoordinator(leaderAddsPartition(req.transactionVersion ?? 2), this.enabled)) return proceed(NONE);
    const queue = this.muted.get(from);
    if (queue !== undefined) {
      queue.push({ req, proceed });
      return;
    }
    this.start(from, req, proceed);
  }

  /** A marker for `producerId` was written at the partition: a verification begun before it no longer holds. */
  onMarker(topic: string, partition: number, producerId: number): void {
    if (this.guards.size > 0) this.guards.delete(`${topic}-${partition}/${producerId}`);
  }

  /**
   * A group coordinator's TxnOffsetCommit from a version 2 client (v5+): the group's `__consumer_offsets`
   * partition joins the transaction here, as the client sent no AddOffsetsToTxn. The error goes back to the
   * client as the coordinator gave it (a fenced epoch as INVALID_PRODUCER_EPOCH); no retry here.
   * [src: core/.../coordinator/group/CoordinatorPartitionWriter.scala `maybeStartTransactionVerification`; AddPartitionsToTxnManager.java `AddPartitionsToTxnHandler.onComplete`]
   */
  addOffsetsPartition(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition, done: (error: KafkaError) => void): void {
    const request = { type: 'AddPartitionsToTxn' as const, transactionalId, producerId, producerEpoch, partitions: [tp], verifyOnly: false, transactionVersion: 2 as const };
    this.host.askCoordinator(transactionalId, request, (r) => {
      const error = errorFor(r, tp);
      done(error === 'PRODUCER_FENCED' ? 'INVALID_PRODUCER_EPOCH' : error);
    });
  }

  private start(from: string, req: ProduceRequest, proceed: (refused: Refusals) => void, startedMs = this.host.nowMs()): void {
    const need: { index: number; tp: TopicPartition; key: string; guard: object }[] = [];
    let producerId = -1;
    let producerEpoch = -1;
    req.partitions.forEach((d, index) => {
      const entry = this.host.producerAt(d.topic, d.partition, d.batch.producerId);
      if (entry === null || !needsVerification(d.batch, entry)) return;
      producerId = d.batch.producerId;
      producerEpoch = d.batch.producerEpoch;
      const key = `${d.topic}-${d.partition}/${producerId}`;
      const guard = {};
      this.guards.set(key, guard);
      need.push({ index, tp: { topic: d.topic, partition: d.partition }, key, guard });
    });
    if (need.length === 0) {
      // A retry found nothing left to add (the transaction is open at each partition now): go on in order.
      proceed(NONE);
      return this.unmute(from);
    }
    if (!this.muted.has(from)) this.muted.set(from, []);
    const version = req.transactionVersion ?? 2;
    const adds = leaderAddsPartition(version);
    const request = { type: 'AddPartitionsToTxn' as const, transactionalId: req.transactionalId!, producerId, producerEpoch, partitions: need.map((n) => n.tp), verifyOnly: !adds, transactionVersion: version };
    this.host.askCoordinator(req.transactionalId!, request, (r) => {
      if (adds && retryAddOnConcurrent(need.map((n) => errorFor(r, n.tp)), this.host.nowMs() - startedMs, this.host.requestTimeoutMs)) {
        // The connection stays muted; the retry starts over (its own guards), as Kafka's scheduled retry does.
        return void this.host.setTimer(ms(ADD_PARTITIONS_RETRY_BACKOFF_MS), () => this.start(from, req, proceed, startedMs));
      }
      const refused = new Map<number, KafkaError>();
      for (const n of need) {
        const coordinatorError = errorFor(r, n.tp);
        // A marker written while the coordinator was asked ended the transaction this batch was verified for.
        const error = coordinatorError !== 'NONE' ? produceErrorOfVerification(coordinatorError, produceSupportedOperation(transactionalProduceVersion(version))) : this.guards.get(n.key) === n.guard ? 'NONE' : 'INVALID_TXN_STATE';
        if (error === 'NONE') continue;
        this.guards.delete(n.key);
        refused.set(n.index, error);
        this.host.trace.emit('txn.unverified', this.host.nodeId, { topic: n.tp.topic, partition: n.tp.partition, broker: this.host.brokerId, producerId, producerEpoch, error });
      }
      proceed(refused);
      this.unmute(from);
    });
  }

  /** The request in process is answered (appended): the next one on the connection is read. */
  private unmute(from: string): void {
    const queue = this.muted.get(from);
    this.muted.delete(from);
    if (queue === undefined) return;
    while (queue.length > 0) {
      const next = queue.shift()!;
      this.start(from, next.req, next.proceed);
      if (this.muted.has(from)) {
        this.muted.get(from)!.push(...queue);
        return;
      }
    }
  }
}
