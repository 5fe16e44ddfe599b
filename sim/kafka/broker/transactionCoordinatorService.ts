import { ms } from '../../core/time';
import type { KafkaError } from '../errors';
import type { Outcome } from '../net/networkClient';
import type { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, FindCoordinatorRequest, ProduceRequest, TopicPartition, WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../protocol';
import { TransactionVerifier } from './transactionVerifier';
import { PayloadTable } from '../records';
import type { CoordinatorStorage } from '../coordinator/storage';
import { coordinatorBatch, readCoordinatorLog } from './coordinatorLog';
import { TransactionCoordinator, type TransactionRequest } from '../coordinator/transaction/transactionCoordinator';
import { TRANSACTION_STATE_TOPIC, partitionForTransactionalId } from '../coordinator/transaction/transactionStateTopic';
import type { TransactionVersion } from '../coordinator/transaction/transactionMetadata';
import type { MetadataImage } from '../metadata/metadataImage';
import type { Broker, BrokerExtension } from './broker';
import { tpKey } from '../topicPartition';

const TXN_REQUESTS = new Set(['InitProducerId', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'EndTxn']);

/** The coordinator's writes and markers use the broker's request.timeout.ms. [src: TransactionStateManager `appendTransactionToLog`] */
const REQUEST_TIMEOUT_MS = 30_000;
/** Backoff before a marker is retried to a partition whose leader refused or was unreachable. [TransactionMarkerChannelManager `retryBackoffMs`] */
const MARKER_RETRY_BACKOFF_MS = 100;

/** Broker configs of the transaction coordinator (Kafka's defaults; not yet settable per scenario). */
export interface TransactionCoordinatorSettings {
  readonly numPartitions: number;
  readonly maxTimeoutMs: number;
  readonly abortIntervalMs: number;
  readonly transactionVersion: TransactionVersion;
  /** transaction.partition.verification.enable: leaders verify transactional writes with the coordinator (KIP-890 part 1). */
  readonly partitionVerification: boolean;
}

/**
 * The broker's side of transaction coordination [core/.../server/KafkaApis.scala; TransactionCoordinator]:
 * answers FindCoordinator for transactional ids from the metadata it applied, routes InitProducerId (with a
 * transactional id), AddPartitionsToTxn, AddOffsetsToTxn and EndTxn to the embedded TransactionCoordinator,
 * loads and unloads `__transaction_state` partitions with leadership, stores the coordinator's records there
 * (acks=all) and writes its markers to partition leaders with WriteTxnMarkers.
 */
export class TransactionCoordinatorService implements BrokerExtension {
  readonly coordinator: TransactionCoordinator;
  private readonly led = new Map<number, number>();
  private readonly verifier: TransactionVerifier;

  constructor(
    private readonly broker: Broker,
    private readonly settings: TransactionCoordinatorSettings,
  ) {
    const payloads = new PayloadTable();
    const storage: CoordinatorStorage = {
      append: (partition, records, done) => {
        broker.replicas.appendAsLeaderAndWait(TRANSACTION_STATE_TOPIC, partition, coordinatorBatch(records, Math.floor(broker.now / 1000), payloads), REQUEST_TIMEOUT_MS, done);
      },
      readLog: (partition) => readCoordinatorLog(broker, TRANSACTION_STATE_TOPIC, partition),
    };
    this.coordinator = new TransactionCoordinator({
      host: broker,
      trace: broker.trace,
      config: {
        'transaction.state.log.num.partitions': settings.numPartitions,
        'transaction.max.timeout.ms': settings.maxTimeoutMs,
        'transaction.abort.timed.out.transaction.cleanup.interval.ms': settings.abortIntervalMs,
        'offsets.topic.num.partitions': broker.config['offsets.topic.num.partitions'],
        transactionVersion: settings.transactionVersion,
      },
      storage,
      io: {
        nextProducerId: () => broker.nextProducerId(),
        writeMarkers: (m, isCurrent, done) => this.writeMarkers(m, isCurrent, done),
      },
    });
    this.verifier = new TransactionVerifier(
      {
        brokerId: broker.brokerId,
        nodeId: broker.id,
        trace: broker.trace,
        producerAt: (topic, partition, producerId) => {
          const p = broker.replicas.partition(topic, partition);
          return p?.isLeader ? p.log.producerAt(producerId) : null;
        },
        askCoordinator: (transactionalId, request, done) => this.askCoordinator(transactionalId, request, done),
        nowMs: () => Math.floor(broker.now / 1000),
        setTimer: (delay, fn) => void broker.setTimer(delay, fn),
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
      },
      settings.partitionVerification,
    );
  }

  verifyProduce(from: string, req: ProduceRequest, proceed: (refused: ReadonlyMap<number, KafkaError>) => void): void {
    this.verifier.verify(from, req, proceed);
  }

  /** A version 2 TxnOffsetCommit's group partition joins the transaction (the client sent no AddOffsetsToTxn). */
  addOffsetsPartition(transactionalId: string, producerId: number, producerEpoch: number, tp: TopicPartition, done: (error: KafkaError) => void): void {
    this.verifier.addOffsetsPartition(transactionalId, producerId, producerEpoch, tp, done);
  }

  onTxnMarkerWritten(topic: string, partition: number, producerId: number): void {
    this.verifier.onMarker(topic, partition, producerId);
  }

  /**
   * A leader's verification request to the transactional id's coordinator: this broker's own (answered in a later
   * event, as Kafka's sender thread would) or another's over the network. [src: AddPartitionsToTxnManager `getTransactionCoordinator`]
   */
  private askCoordinator(transactionalId: string, request: Omit<AddPartitionsToTxnRequest, 'correlationId'>, done: (r: AddPartitionsToTxnResponse | { error: KafkaError; results: [] }) => void): void {
    const p = partitionForTransactionalId(transactionalId, this.settings.numPartitions);
    const leader = this.broker.image.partitionByName(TRANSACTION_STATE_TOPIC, p)?.leader ?? -1;
    if (leader < 0 || this.broker.image.broker(leader)?.fenced !== false) return void this.broker.setTimer(0, () => done({ error: 'COORDINATOR_NOT_AVAILABLE', results: [] }));
    if (leader === this.broker.brokerId) {
      this.broker.setTimer(0, () => this.coordinator.handle({ ...request, correlationId: 0 }, (r) => done(r as AddPartitionsToTxnResponse)));
      return;
    }
    this.broker.sendToBroker<Omit<AddPartitionsToTxnRequest, 'correlationId'>, AddPartitionsToTxnResponse>(leader, request, REQUEST_TIMEOUT_MS, (o) =>
      done(o.ok ? o.response : { error: o.error, results: [] }),
    );
  }

  handle(from: string, msg: { type: string; correlationId: number }): boolean {
    if (msg.type === 'FindCoordinator') {
      const req = msg as FindCoordinatorRequest;
      if (req.keyType !== 'TRANSACTION') return false;
      const p = partitionForTransactionalId(req.key, this.settings.numPartitions);
      const leader = this.broker.image.partitionByName(TRANSACTION_STATE_TOPIC, p)?.leader ?? -1;
      const live = leader >= 0 && this.broker.image.broker(leader)?.fenced === false;
      this.broker.send(from, { type: 'FindCoordinatorResponse', correlationId: req.correlationId, error: live ? 'NONE' : 'COORDINATOR_NOT_AVAILABLE', nodeId: live ? leader : -1 }, 32);
      return true;
    }
    if (!TXN_REQUESTS.has(msg.type)) return false;
    this.coordinator.handle(msg as TransactionRequest, (resp) => this.broker.send(from, resp, 48));
    return true;
  }

  onMetadataApplied(_image: MetadataImage): void {
    for (let p = 0; p < this.settings.numPartitions; p++) {
      const replica = this.broker.replicas.partition(TRANSACTION_STATE_TOPIC, p);
      const leading = replica?.isLeader === true;
      const epoch = this.led.get(p);
      if (leading && epoch !== replica!.leaderEpoch) {
        this.led.set(p, replica!.leaderEpoch);
        this.coordinator.onBecomeLeader(p, replica!.leaderEpoch);
      } else if (!leading && epoch !== undefined) {
        this.led.delete(p);
        this.coordinator.onResign(p);
      }
    }
  }

  /**
   * Markers grouped by leader, one WriteTxnMarkers per leader; a partition whose leader refused, was
   * unreachable or unknown is retried after a backoff until written. A deleted partition needs no marker; a
   * fenced coordinator (it lost the partition) stops. [src: TransactionMarkerChannelManager.scala,
   * TransactionMarkerRequestCompletionHandler.scala]
   */
  private writeMarkers(
    m: { transactionalId: string; producerId: number; producerEpoch: number; coordinatorEpoch: number; result: 'COMMIT' | 'ABORT'; partitions: readonly TopicPartition[] },
    isCurrent: () => boolean,
    done: () => void,
  ): void {
    const remaining = new Map(m.partitions.map((tp) => [tpKey(tp.topic, tp.partition), tp]));
    // The Complete* write that follows runs in its own event too (a marker is acknowledged inside a fetch).
    const finish = (): void => void this.broker.setTimer(0, done);
    const round = (): void => {
      if (!isCurrent()) return;
      if (remaining.size === 0) return finish();
      const byLeader = new Map<number, TopicPartition[]>();
      let unknown = false;
      for (const tp of remaining.values()) {
        const info = this.broker.image.partitionByName(tp.topic, tp.partition);
        if (info === undefined) {
          remaining.delete(tpKey(tp.topic, tp.partition));
          continue;
        }
        if (info.leader < 0) {
          unknown = true;
          continue;
        }
        let list = byLeader.get(info.leader);
        if (!list) byLeader.set(info.leader, (list = []));
        list.push(tp);
      }
      if (remaining.size === 0) return finish();
      let outstanding = byLeader.size;
      const retryLater = () => this.broker.setTimer(ms(MARKER_RETRY_BACKOFF_MS), round);
      if (outstanding === 0) {
        if (unknown) retryLater();
        return;
      }
      const onAnswer = (markers: WriteTxnMarkersResponse['markers'] | null, sent: readonly TopicPartition[]) => {
        for (const tp of sent) {
          const err: KafkaError | undefined = markers?.[0]?.partitions.find((x) => x.topic === tp.topic && x.partition === tp.partition)?.error;
          if (err === 'NONE' || err === 'UNKNOWN_TOPIC_OR_PARTITION') remaining.delete(tpKey(tp.topic, tp.partition));
        }
        if (--outstanding > 0) return;
        if (remaining.size === 0) finish();
        else retryLater();
      };
      for (const leader of [...byLeader.keys()].sort((a, b) => a - b)) {
        const sent = byLeader.get(leader)!;
        const body = {
          markers: [{ producerId: m.producerId, producerEpoch: m.producerEpoch, coordinatorEpoch: m.coordinatorEpoch, transactionResult: m.result, partitions: sent }],
        };
        if (leader === this.broker.brokerId) {
          this.broker.writeTxnMarkers(body, (markers) => onAnswer(markers, sent));
        } else {
          this.broker.sendToBroker<Omit<WriteTxnMarkersRequest, 'correlationId'>, WriteTxnMarkersResponse>(
            leader,
            { type: 'WriteTxnMarkers', ...body },
            REQUEST_TIMEOUT_MS,
            (o: Outcome<WriteTxnMarkersResponse>) => onAnswer(o.ok ? o.response.markers : null, sent),
          );
        }
      }
    };
    // The marker channel runs on its own thread in Kafka: the first round starts after the event that decided
    // the transaction (a follower's fetch that advanced the __transaction_state HW must be done and parked
    // before the markers it unblocks are appended, or its wake-up is lost).
    this.broker.setTimer(0, round);
  }
}

/** Several extensions on one broker: each request goes to the first that takes it. */
export function composeExtensions(...exts: BrokerExtension[]): BrokerExtension {
  return {
    handle: (from, msg) => exts.some((e) => e.handle(from, msg)),
    onMetadataApplied: (image) => {
      for (const e of exts) e.onMetadataApplied?.(image);
    },
    onTxnMarkerWritten: (topic, partition, producerId, commit) => {
      for (const e of exts) e.onTxnMarkerWritten?.(topic, partition, producerId, commit);
    },
    verifyProduce: (from, req, proceed) => {
      const v = exts.find((e) => e.verifyProduce !== undefined);
      if (v) v.verifyProduce!(from, req, proceed);
      else proceed(new Map());
    },
  };
}
