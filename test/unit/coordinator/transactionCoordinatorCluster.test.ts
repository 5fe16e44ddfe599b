import { describe, expect, it } from 'vitest';
import { ms } from '../../../sim/core/time';
import { ofKind } from '../../../sim/core/trace';
import { BROKER_CONFIGS } from '../../../sim/kafka/config/configs';
import { resolveConfig } from '../../../sim/kafka/config/def';
import { KafkaCluster } from '../../../sim/kafka/cluster';
import { classifyFetchedBatches } from '../../../sim/kafka/client/consumer/abortedTransactions';
import { partitionForTransactionalId } from '../../../sim/kafka/coordinator/transaction/transactionStateTopic';
import type { FetchResponse, ProduceResponse } from '../../../sim/kafka/protocol';
import { buildBatch } from '../../../sim/kafka/records';
import { Process } from '../../../sim/world/process';
import { World } from '../../../sim/world/world';
import { brokerExtensionsFor, transactionTopics } from '../../../sim/scenario/transactions';

/** Sends what it is told to and keeps every reply by correlation id. */
class Probe extends Process {
  private next = 1;
  readonly replies = new Map<number, { type: string; [k: string]: unknown }>();
  onMessage(_from: string, msg: unknown): void {
    const m = msg as { type: string; correlationId: number };
    this.replies.set(m.correlationId, m);
  }
  request(to: number, body: Record<string, unknown> & { type: string }): number {
    const correlationId = this.next++;
    this.send(`broker-${to}`, { ...body, correlationId }, 64);
    return correlationId;
  }
}

function boot() {
  const world = new World({ seed: 7 });
  // Five __transaction_state partitions keep the boot short; "txn-1" hashes to partition 110810510 % 5 = 0.
  const brokerConfig = resolveConfig(BROKER_CONFIGS, { 'transaction.state.log.num.partitions': 5 }, 'broker');
  const cluster = new KafkaCluster(world, {
    controllers: 1,
    brokers: 3,
    racks: [null, null, null],
    zones: ['zone-a'],
    brokerConfig,
    staticConfig: {},
    eligibleLeaderReplicas: false,
    legacyHighWatermarkTruncation: false,
    brokerExtensions: brokerExtensionsFor(false, true, brokerConfig)!,
  });
  cluster.boot([{ name: 'out', numPartitions: 1, replicationFactor: 3, configs: {} }, ...transactionTopics(brokerConfig)]);
  const host = world.addHost({ id: 'probe', zone: 'zone-a', tags: ['client'] });
  let probe: Probe | undefined;
  host.addProcess({ id: 'probe', create: (ctx) => (probe = new Probe('probe', ctx)) });
  host.start();
  const run = (msMore: number) => world.runUntil(world.now + ms(msMore));
  run(500); // coordinators load their partitions
  /** InitProducerId, retried as a client retries COORDINATOR_LOAD_IN_PROGRESS (the broker fetches a block of ids first). */
  const initProducerId = (coordinator: number, transactionTimeoutMs: number) => {
    for (;;) {
      const id = probe!.request(coordinator, { type: 'InitProducerId', transactionalId: 'txn-1', transactionTimeoutMs });
      run(200);
      const r = probe!.replies.get(id)!;
      if (r.error !== 'COORDINATOR_LOAD_IN_PROGRESS') return r;
    }
  };
  return { world, cluster, probe: probe!, run, brokerConfig, initProducerId };
}

describe('the transaction coordinator on brokers, the markers and the LSO', () => {
  it('InitProducerId, an aborted and a committed transaction: markers, the aborted index, read_committed vs read_uncommitted, the zombie fenced', () => {
    const { cluster, probe, run, world, initProducerId } = boot();
    expect(partitionForTransactionalId('txn-1', 5)).toBe(0);
    const find = probe.request(1, { type: 'FindCoordinator', key: 'txn-1', keyType: 'TRANSACTION' });
    run(50);
    const coordinator = probe.replies.get(find)!.nodeId as number;
    expect(coordinator).toBe(cluster.image()!.partitionByName('__transaction_state', 0)!.leader);

    const initReply = initProducerId(coordinator, 60_000);
    expect(initReply).toMatchObject({ error: 'NONE', producerEpoch: 0 });
    const pid = initReply.producerId as number;
    const leader = cluster.image()!.partitionByName('out', 0)!.leader;

    const txn = (epoch: number, values: string[], committed: boolean, seq: number) => {
      const add = probe.request(coordinator, { type: 'AddPartitionsToTxn', transactionalId: 'txn-1', producerId: pid, producerEpoch: epoch, partitions: [{ topic: 'out', partition: 0 }], verifyOnly: false, transactionVersion: 2 });
      run(200);
      expect(probe.replies.get(add)).toMatchObject({ error: 'NONE' });
      const batch = buildBatch(values.map((v) => ({ key: null, value: v, timestamp: 0 })), { producerId: pid, producerEpoch: epoch, baseSequence: seq, isTransactional: true });
      const produce = probe.request(leader, { type: 'Produce', acks: -1, timeoutMs: 30_000, partitions: [{ topic: 'out', partition: 0, batch }] });
      run(200);
      expect((probe.replies.get(produce) as unknown as ProduceResponse).partitions[0]!.error).toBe('NONE');
      const endTxn = probe.request(coordinator, { type: 'EndTxn', transactionalId: 'txn-1', producerId: pid, producerEpoch: epoch, committed, transactionVersion: 2 });
      run(500);
      return probe.replies.get(endTxn)!;
    };
    // Transaction version 2: every EndTxn bumps the epoch; the next transaction uses it.
    expect(txn(0, ['a0', 'a1'], false, 0)).toMatchObject({ error: 'NONE', producerId: pid, producerEpoch: 1 });
    expect(txn(1, ['c0'], true, 0)).toMatchObject({ error: 'NONE', producerId: pid, producerEpoch: 2 });

    // The log of out-0: [a0 a1] ABORT [c0] COMMIT; the aborted index holds the first transaction.
    const log = cluster.broker(leader)!.replicas.partition('out', 0)!.log;
    expect(log.highWatermark).toBe(5);
    expect(log.lastStableOffset).toBe(5);
    const markers = ofKind(world.memory!.events, 'replica.append').filter((e) => e.control !== undefined);
    expect(markers.map((e) => [e.control, e.base, e.producerEpoch])).toEqual([
      ['ABORT', 2, 1],
      ['COMMIT', 4, 2],
    ]);
    const states = ofKind(world.memory!.events, 'txn.state').map((e) => e.to);
    expect(states).toEqual(['Empty', 'Ongoing', 'PrepareAbort', 'CompleteAbort', 'Ongoing', 'PrepareCommit', 'CompleteCommit']);

    const fetch = (isolationLevel: string) => {
      const id = probe.request(leader, {
        type: 'Fetch',
        replicaId: -1,
        replicaEpoch: -1,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1 << 20,
        isolationLevel,
        sessionId: 0,
        sessionEpoch: -1, // sessionless: the partition is answered whatever it holds
        forgottenTopicsData: [],
        partitions: [{ topic: 'out', partition: 0, fetchOffset: 0, lastFetchedEpoch: -1, currentLeaderEpoch: -1, logStartOffset: -1, maxBytes: 1 << 20 }],
      });
      run(50);
      const p = (probe.replies.get(id) as unknown as FetchResponse).partitions[0]!;
      const views = p.batches.map((b) => ({ baseOffset: b.baseOffset, lastOffset: b.baseOffset + b.lastOffsetDelta, producerId: b.producerId, isTransactional: b.isTransactional, isControl: b.isControl, ...(b.controlType ? { controlType: b.controlType } : {}) }));
      const verdicts = classifyFetchedBatches(isolationLevel as 'read_committed', views, p.abortedTransactions ?? []);
      return { p, delivered: p.batches.filter((_, i) => verdicts[i] === 'deliver').flatMap((b) => b.values()) };
    };
    const committed = fetch('read_committed');
    expect(committed.p.abortedTransactions).toEqual([{ producerId: pid, firstOffset: 0 }]);
    expect(committed.delivered).toEqual(['c0']);
    const uncommitted = fetch('read_uncommitted');
    expect(uncommitted.p.abortedTransactions).toBeUndefined();
    expect(uncommitted.delivered).toEqual(['a0', 'a1', 'c0']);

    // A zombie still at epoch 0: the partition leader refuses its write, the coordinator its EndTxn.
    const zombie = probe.request(leader, {
      type: 'Produce',
      acks: -1,
      timeoutMs: 30_000,
      partitions: [{ topic: 'out', partition: 0, batch: buildBatch([{ key: null, value: 'z', timestamp: 0 }], { producerId: pid, producerEpoch: 0, baseSequence: 2, isTransactional: true }) }],
    });
    const zombieEnd = probe.request(coordinator, { type: 'EndTxn', transactionalId: 'txn-1', producerId: pid, producerEpoch: 0, committed: true, transactionVersion: 2 });
    run(200);
    expect((probe.replies.get(zombie) as unknown as ProduceResponse).partitions[0]!.error).toBe('INVALID_PRODUCER_EPOCH');
    expect(probe.replies.get(zombieEnd)).toMatchObject({ error: 'PRODUCER_FENCED' });
  });

  it('an open transaction pins the LSO until the coordinator times it out, fences the epoch and aborts it', () => {
    const { cluster, probe, run, world, initProducerId } = boot();
    const coordinator = cluster.image()!.partitionByName('__transaction_state', 0)!.leader;
    const pid = initProducerId(coordinator, 5_000).producerId as number;
    const leader = cluster.image()!.partitionByName('out', 0)!.leader;
    probe.request(coordinator, { type: 'AddPartitionsToTxn', transactionalId: 'txn-1', producerId: pid, producerEpoch: 0, partitions: [{ topic: 'out', partition: 0 }], verifyOnly: false, transactionVersion: 2 });
    run(200);
    probe.request(leader, { type: 'Produce', acks: -1, timeoutMs: 30_000, partitions: [{ topic: 'out', partition: 0, batch: buildBatch([{ key: null, value: 'h', timestamp: 0 }], { producerId: pid, producerEpoch: 0, baseSequence: 0, isTransactional: true }) }] });
    // A non-transactional write after it: visible to read_uncommitted, held back from read_committed.
    probe.request(leader, { type: 'Produce', acks: -1, timeoutMs: 30_000, partitions: [{ topic: 'out', partition: 0, batch: buildBatch([{ key: null, value: 'plain', timestamp: 0 }]) }] });
    run(500);
    const log = cluster.broker(leader)!.replicas.partition('out', 0)!.log;
    expect([log.highWatermark, log.lastStableOffset]).toEqual([2, 0]);
    const latest = (isolationLevel: string) => {
      const id = probe.request(leader, { type: 'ListOffsets', isolationLevel, partitions: [{ topic: 'out', partition: 0, timestamp: -1, currentLeaderEpoch: -1 }] });
      run(50);
      return (probe.replies.get(id) as unknown as { partitions: { offset: number }[] }).partitions[0]!.offset;
    };
    expect([latest('read_uncommitted'), latest('read_committed')]).toEqual([2, 0]);
    // transaction.timeout.ms 5 s, checked every 10 s: aborted by ~10 s after the start.
    run(11_000);
    const timeouts = ofKind(world.memory!.events, 'txn.timeout');
    expect(timeouts).toHaveLength(1);
    expect(log.lastStableOffset).toBe(log.highWatermark);
    expect(log.logEndOffset).toBe(3);
    expect(log.collectAbortedTransactions(0, 3)).toEqual([{ producerId: pid, firstOffset: 0 }]);
    // Fenced: 0 -> 1, and the TV2 abort bumps again -> 2.
    const abortMarker = ofKind(world.memory!.events, 'replica.append').find((e) => e.control === 'ABORT');
    expect(abortMarker?.producerEpoch).toBe(2);
    const lso = ofKind(world.memory!.events, 'replica.lso');
    // Traced when it is first held below the HW, and when the abort marker (replicated) releases it.
    expect(lso.map((e) => [e.lso, e.hw])).toEqual([
      [0, 1],
      [3, 3],
    ]);
  });
});
