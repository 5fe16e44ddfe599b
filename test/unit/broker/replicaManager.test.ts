import { describe, expect, it } from 'vitest';
import { BROKER_CONFIGS } from '../../../sim/kafka/config/configs';
import { defaultsOf } from '../../../sim/kafka/config/def';
import { LogManager } from '../../../sim/kafka/log/logManager';
import { DEFAULT_LOG_MANAGER_CONFIG } from '../../../sim/kafka/log/logConfig';
import { directTaskScheduler } from '../../../sim/kafka/log/taskScheduler';
import { ReplicaManager, type ReplicaManagerHost } from '../../../sim/kafka/broker/replicaManager';
import type { FetchRequest, FetchResponse, ProduceRequest } from '../../../sim/kafka/protocol';
import { buildBatch } from '../../../sim/kafka/records';
import { World } from '../../../sim/world/world';
import { BrokerMetrics } from '../../../sim/kafka/broker/brokerMetrics';

/** Broker 1 of a two-broker partition set, driven by hand: requests in, replies captured in order. */
function leaderBroker(replicas: readonly number[] = [1, 2]) {
  const w = new World({ seed: 1 });
  const h = w.addHost({ id: 'broker-1' });
  const tasks = directTaskScheduler(w.scheduler);
  const logManager = new LogManager({ disk: h.disk, trace: w.trace, node: 'broker-1', tasks, random: w.random.fork('log') }, DEFAULT_LOG_MANAGER_CONFIG);
  const replies: { to: string; msg: { type: string; correlationId: number } }[] = [];
  const host: ReplicaManagerHost = {
    brokerId: 1,
    nodeId: 'broker-1',
    brokerEpoch: 1,
    trace: w.trace,
    config: defaultsOf(BROKER_CONFIGS),
    legacyHighWatermarkTruncation: false,
    logManager,
    nowMs: () => Math.floor(w.now / 1000),
    nowUs: () => w.now,
    effectiveMinIsr: () => 1,
    isReplicaIsrEligible: () => true,
    sendAlterPartition: () => {},
    onHighWatermarkIncreased: (p) => rm.onHighWatermarkIncreased(p),
    sendFetch: () => {},
    setTimer: (d, fn) => {
      w.scheduler.after(d, fn);
    },
    setTimerId: (d, fn) => w.scheduler.after(d, fn),
    cancelTimer: (id) => {
      w.scheduler.cancel(id);
    },
    reply: (to, msg) => replies.push({ to, msg: msg as { type: string; correlationId: number } }),
    closeConnection: () => {},
    emitTruncate: () => {},
    emitFollowerAppend: () => {},
    emitFollowerHighWatermark: () => {},
    // No replication throttles, and no metadata beyond the partitions applied below.
    shouldLeaderThrottle: () => false,
    recordLeaderThrottled: () => {},
    shouldFollowerThrottle: () => false,
    recordFollowerThrottled: () => {},
    metadataLeader: () => ({ leaderId: -1, leaderEpoch: -1 }),
    isAliveBroker: () => true,
    metrics: new BrokerMetrics(w.now),
  };
  const rm = new ReplicaManager(host);
  for (const partition of [0, 1]) rm.applyPartitionState('orders', partition, { leader: 1, leaderEpoch: 0, partitionEpoch: 0, replicas, isr: replicas, elr: [] });
  return { w, rm, replies };
}

const followerFetch = (correlationId: number, offset: number): FetchRequest => ({
  type: 'Fetch',
  correlationId,
  replicaId: 2,
  replicaEpoch: 1,
  maxWaitMs: 500,
  minBytes: 1,
  maxBytes: 10_485_760,
  isolationLevel: 'read_uncommitted',
  partitions: [0, 1].map((partition) => ({ topic: 'orders', partition, fetchOffset: offset, lastFetchedEpoch: offset === 0 ? -1 : 0, currentLeaderEpoch: 0, logStartOffset: 0, maxBytes: 1_048_576 })),
});

const produce = (correlationId: number, acks: -1 | 1): ProduceRequest => ({
  type: 'Produce',
  correlationId,
  acks,
  timeoutMs: 30_000,
  partitions: [0, 1].map((partition) => ({ topic: 'orders', partition, batch: buildBatch([{ key: null, value: `v${partition}`, timestamp: 0 }]) })),
});

describe('ReplicaManager: delayed operations after a Produce', () => {
  it('completes a parked follower fetch once the whole request is appended, with every partition it appended', () => {
    const { rm, replies } = leaderBroker();
    rm.handleFetch('broker-2', followerFetch(7, 0));
    expect(replies).toEqual([]); // nothing to read: parked
    rm.handleProduce('producer-1', produce(8, 1));
    // The acks=1 answer goes first, then the fetch, which carries both partitions' new batches
    // [ReplicaManager.appendRecords -> addCompletePurgatoryAction; KafkaApis.handle -> tryCompleteActions].
    expect(replies.map((r) => r.msg.type)).toEqual(['ProduceResponse', 'FetchResponse']);
    const fetched = replies[1]!.msg as unknown as FetchResponse;
    expect(fetched.partitions.map((p) => [p.partition, p.batches.length])).toEqual([
      [0, 1],
      [1, 1],
    ]);
  });

  it('answers an acks=all produce when the HW covers it, and a consumer fetch parked on the HW after that answer', () => {
    const { rm, replies } = leaderBroker([1]); // the leader is the only replica: its own append moves the HW
    rm.handleFetch('consumer-1', { ...followerFetch(3, 0), replicaId: -1, replicaEpoch: -1, partitions: followerFetch(3, 0).partitions.map((p) => ({ ...p, lastFetchedEpoch: -1 })) });
    expect(replies).toEqual([]);
    rm.handleProduce('producer-1', produce(4, -1));
    expect(replies.map((r) => `${r.msg.type}:${r.msg.correlationId}`)).toEqual(['ProduceResponse:4', 'FetchResponse:3']);
    const fetched = replies[1]!.msg as unknown as FetchResponse;
    expect(fetched.partitions.filter((p) => p.batches.length > 0).map((p) => p.partition)).toEqual([0, 1]);
  });
});

describe('ReplicaManager: follower fetch responses', () => {
  it('leaves out an empty partition whose HW and log start the follower was already told, epoch or not', () => {
    const { rm, replies } = leaderBroker();
    const now = (id: number) => ({ ...followerFetch(id, 0), maxWaitMs: 0 });
    rm.handleFetch('broker-2', now(1));
    rm.handleFetch('broker-2', now(2));
    const [first, second] = replies.map((r) => r.msg as unknown as FetchResponse);
    // The follower's empty logs have no epoch to send (lastFetchedEpoch -1) while the leader's epoch cache has
    // epoch 0: that must not make the partitions count as changed [FetchSession.scala maybeUpdateResponseData].
    expect(first!.partitions.map((p) => p.partition)).toEqual([0, 1]);
    expect(second!.partitions).toEqual([]);
  });
});
