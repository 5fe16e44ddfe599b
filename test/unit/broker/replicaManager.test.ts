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
function leaderBroker(replicas: readonly number[] = [1, 2], overrides: Partial<ReplicaManagerHost> = {}) {
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
    random: w.random.fork('fetch-sessions'),
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
    followerThrottleConfigured: () => false,
    metadataLeader: () => ({ leaderId: -1, leaderEpoch: -1 }),
    isAliveBroker: () => true,
    metrics: new BrokerMetrics(w.now),
    ...overrides,
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
  sessionId: 0,
  sessionEpoch: -1, // sessionless: every partition is answered
  partitions: [0, 1].map((partition) => ({ topic: 'orders', partition, fetchOffset: offset, lastFetchedEpoch: offset === 0 ? -1 : 0, currentLeaderEpoch: 0, logStartOffset: 0, maxBytes: 1_048_576 })),
  forgottenTopicsData: [],
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

  it('the read that completes a parked follower fetch leaves the follower state as its first read recorded it', () => {
    const { w, rm, replies } = leaderBroker();
    rm.handleFetch('broker-2', followerFetch(7, 0));
    const follower = () => ({ ...rm.partition('orders', 0)!.followerFetchState(2)! });
    const first = follower();
    expect(first.lastFetchTimeMs).toBe(0);
    w.runUntil(w.now + 200_000); // 200 ms later, still parked (maxWaitMs 500)
    rm.handleProduce('producer-1', produce(8, 1));
    expect(replies.map((r) => r.msg.type)).toEqual(['ProduceResponse', 'FetchResponse']);
    // Kafka's DelayedFetch.onComplete reads with readFromPurgatory = true: no second fetch is recorded at 200 ms,
    // so the follower's last fetch still saw log end 0 at 0 ms (what decides its lastCaughtUpTimeMs next time).
    expect(follower()).toEqual(first);
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

describe('ReplicaManager: fetch sessions (KIP-227)', () => {
  const full = (id: number) => ({ ...followerFetch(id, 0), maxWaitMs: 0, sessionEpoch: 0 });
  const incremental = (id: number, sessionId: number, sessionEpoch: number, partitions: FetchRequest['partitions'] = []) => ({
    ...followerFetch(id, 0),
    maxWaitMs: 0,
    sessionId,
    sessionEpoch,
    partitions,
  });
  const answers = (replies: { msg: unknown }[]) => replies.map((r) => r.msg as FetchResponse);

  it('answers a full fetch with every partition and a session; later ones leave out what the follower already has', () => {
    const { rm, replies } = leaderBroker();
    rm.handleFetch('broker-2', full(1));
    const [first] = answers(replies);
    expect(first!.partitions.map((p) => p.partition)).toEqual([0, 1]);
    expect(first!.sessionId).toBeGreaterThan(0);
    // Nothing changed: an empty request, an empty answer. The follower's empty logs have no epoch to send
    // (lastFetchedEpoch -1) while the leader's epoch cache has epoch 0: that must not count as a change.
    rm.handleFetch('broker-2', incremental(2, first!.sessionId, 1));
    expect(answers(replies)[1]).toMatchObject({ error: 'NONE', sessionId: first!.sessionId, partitions: [] });
    // New data on partition 1 (sent because the follower's fetch offset is still 0 in the session).
    rm.handleProduce('producer-1', { ...produce(3, 1), partitions: [produce(3, 1).partitions[1]!] });
    rm.handleFetch('broker-2', incremental(4, first!.sessionId, 2));
    const third = answers(replies).find((r) => r.correlationId === 4)!;
    expect(third.partitions.map((p) => [p.partition, p.batches.length])).toEqual([[1, 1]]);
  });

  it('refuses an unknown session id and a wrong epoch with the session errors and no partitions', () => {
    const { rm, replies } = leaderBroker();
    rm.handleFetch('broker-2', full(1));
    const id = answers(replies)[0]!.sessionId;
    rm.handleFetch('broker-2', incremental(2, id + 1, 1));
    rm.handleFetch('broker-2', incremental(3, id, 5));
    expect(answers(replies).slice(1).map((r) => [r.error, r.partitions.length])).toEqual([
      ['FETCH_SESSION_ID_NOT_FOUND', 0],
      ['INVALID_FETCH_SESSION_EPOCH', 0],
    ]);
    // The session is still there at its epoch: the right request goes through.
    rm.handleFetch('broker-2', incremental(4, id, 1));
    expect(answers(replies)[3]!.error).toBe('NONE');
  });

  it('forgets partitions the request names, and closes the session a full request replaces', () => {
    const { rm, replies } = leaderBroker();
    rm.handleFetch('broker-2', full(1));
    const id = answers(replies)[0]!.sessionId;
    rm.handleFetch('broker-2', { ...incremental(2, id, 1), forgottenTopicsData: [{ topic: 'orders', partition: 0 }] });
    rm.handleProduce('producer-1', produce(3, 1));
    rm.handleFetch('broker-2', incremental(4, id, 2));
    expect(answers(replies).find((r) => r.correlationId === 4)!.partitions.map((p) => p.partition)).toEqual([1]);
    rm.handleFetch('broker-2', { ...full(5), sessionId: id });
    rm.handleFetch('broker-2', incremental(6, id, 3));
    expect(answers(replies).find((r) => r.correlationId === 6)!.error).toBe('FETCH_SESSION_ID_NOT_FOUND');
  });
});

describe('ReplicaManager: a session fetch parks once for its session', () => {
  const consumerFull = (id: number) => ({ ...followerFetch(id, 0), replicaId: -1, replicaEpoch: -1, maxWaitMs: 0, sessionEpoch: 0, partitions: followerFetch(id, 0).partitions.map((p) => ({ ...p, lastFetchedEpoch: -1 })) });
  const consumerNext = (id: number, sessionId: number, sessionEpoch: number, over: Partial<FetchRequest> = {}): FetchRequest => ({
    ...consumerFull(id),
    maxWaitMs: 500,
    sessionId,
    sessionEpoch,
    partitions: [],
    ...over,
  });
  const at1 = (partition: number) => ({ topic: 'orders', partition, fetchOffset: 1, lastFetchedEpoch: -1, currentLeaderEpoch: 0, logStartOffset: 0, maxBytes: 1_048_576 });
  const appendTo = (partition: number, correlationId: number) => ({ ...produce(correlationId, -1), partitions: [produce(correlationId, -1).partitions[partition]!] });
  const fetchAnswers = (replies: { msg: { type: string; correlationId: number } }[]) => replies.filter((r) => r.msg.type === 'FetchResponse').map((r) => r.msg.correlationId);

  it('parked session fetches complete in the order they were parked, whichever session came first', () => {
    const { rm, replies } = leaderBroker([1]); // the only replica: an append moves the HW, which wakes consumers
    rm.handleFetch('consumer-a', consumerFull(1));
    rm.handleFetch('consumer-b', consumerFull(2));
    const [a, b] = replies.map((r) => (r.msg as unknown as FetchResponse).sessionId);
    // b parks first, then a: both wake on one append, b answered first.
    rm.handleFetch('consumer-b', consumerNext(10, b!, 1));
    rm.handleFetch('consumer-a', consumerNext(11, a!, 1));
    expect(fetchAnswers(replies)).toEqual([1, 2]);
    rm.handleProduce('producer-1', appendTo(0, 20));
    expect(fetchAnswers(replies)).toEqual([1, 2, 10, 11]);
    // Now a first, then b.
    rm.handleFetch('consumer-a', consumerNext(12, a!, 2, { partitions: [at1(0)] }));
    rm.handleFetch('consumer-b', consumerNext(13, b!, 2, { partitions: [at1(0)] }));
    expect(fetchAnswers(replies)).toEqual([1, 2, 10, 11]);
    rm.handleProduce('producer-1', appendTo(1, 21));
    expect(fetchAnswers(replies)).toEqual([1, 2, 10, 11, 12, 13]);
  });

  it('a fetch parked when its session changes (the client gave up on it) still watches the partitions it was parked on', () => {
    const { rm, replies } = leaderBroker([1]);
    rm.handleFetch('consumer-a', consumerFull(1));
    const id = (replies[0]!.msg as unknown as FetchResponse).sessionId;
    rm.handleFetch('consumer-a', consumerNext(2, id, 1));
    // The next request forgets partition 0 and does not wait.
    rm.handleFetch('consumer-a', consumerNext(3, id, 2, { maxWaitMs: 0, forgottenTopicsData: [{ topic: 'orders', partition: 0 }] }));
    expect(fetchAnswers(replies)).toEqual([1, 3]);
    // An append to partition 0 still completes the first parked fetch (its session has moved on: an epoch error).
    rm.handleProduce('producer-1', appendTo(0, 4));
    expect(fetchAnswers(replies)).toEqual([1, 3, 2]);
    expect((replies.find((r) => r.msg.correlationId === 2)!.msg as unknown as FetchResponse).error).toBe('INVALID_FETCH_SESSION_EPOCH');
  });
});

describe('ReplicaManager: fetch sessions with throttles, leader hints and a follower\'s own session', () => {
  const answers = (replies: { msg: unknown }[]) => replies.map((r) => r.msg as FetchResponse);
  const full = (id: number) => ({ ...followerFetch(id, 0), maxWaitMs: 0, sessionEpoch: 0 });
  const incremental = (id: number, sessionId: number, sessionEpoch: number, maxWaitMs = 0) => ({ ...followerFetch(id, 0), maxWaitMs, sessionId, sessionEpoch, partitions: [] });

  it('a throttled leader read returns no records and stays out of the answer; only bytes sent count towards the quota', () => {
    const recorded: [number, number][] = [];
    const { rm, replies } = leaderBroker([1, 2], {
      shouldLeaderThrottle: (p) => p.partition === 1, // [ReplicaManager.readFromLog `shouldLeaderThrottle`]
      recordLeaderThrottled: (p, bytes) => recorded.push([p.partition, bytes]),
    });
    rm.handleFetch('broker-2', full(1));
    const id = answers(replies)[0]!.sessionId;
    rm.handleProduce('producer-1', produce(2, 1));
    rm.handleFetch('broker-2', incremental(3, id, 1));
    const r = answers(replies).find((x) => x.correlationId === 3)!;
    expect(r.partitions.map((p) => [p.partition, p.batches.length])).toEqual([[0, 1]]);
    expect(recorded.map(([p]) => p)).toEqual([0]);
    expect(recorded[0]![1]).toBeGreaterThan(0);
    // A parked fetch is not completed by an append to the throttled partition alone [DelayedFetch.tryComplete].
    rm.handleFetch('broker-2', { ...incremental(4, id, 2, 500), partitions: [{ topic: 'orders', partition: 0, fetchOffset: 1, lastFetchedEpoch: 0, currentLeaderEpoch: 0, logStartOffset: 0, maxBytes: 1_048_576 }] });
    rm.handleProduce('producer-1', { ...produce(5, 1), partitions: [produce(5, 1).partitions[1]!] });
    expect(answers(replies).some((x) => x.correlationId === 4)).toBe(false);
  });

  it('a partition this broker no longer leads is answered in an incremental session with the new leader (KIP-951)', () => {
    const { rm, replies } = leaderBroker();
    rm.handleFetch('broker-2', full(1));
    const id = answers(replies)[0]!.sessionId;
    rm.applyPartitionState('orders', 0, { leader: 2, leaderEpoch: 1, partitionEpoch: 1, replicas: [1, 2], isr: [1, 2], elr: [] });
    // The fetcher learned the new epoch: the partition is changed in the session, the broker answers it (and only it).
    const moved = { topic: 'orders', partition: 0, fetchOffset: 0, lastFetchedEpoch: -1, currentLeaderEpoch: 1, logStartOffset: 0, maxBytes: 1_048_576 };
    rm.handleFetch('broker-2', { ...incremental(2, id, 1), partitions: [moved] });
    const r = answers(replies).find((x) => x.correlationId === 2)!;
    expect(r.partitions).toHaveLength(1);
    expect(r.partitions[0]).toMatchObject({ partition: 0, error: 'NOT_LEADER_OR_FOLLOWER', currentLeader: { leaderId: 2, leaderEpoch: 1 } });
    expect(r.nodeEndpoints).toEqual([2]);
  });

  it('a follower leaves a throttled partition out of its session (forgotten) and adds it back in full once the quota allows', () => {
    const throttled = new Set<number>();
    const sent: { req: Omit<FetchRequest, 'correlationId'>; done: (o: { ok: true; response: FetchResponse }) => void }[] = [];
    const { w, rm } = leaderBroker([1, 2], {
      shouldFollowerThrottle: (p) => throttled.has(p.partition), // [RemoteLeaderEndPoint.buildFetch]
      followerThrottleConfigured: () => true, // the topic names throttled follower replicas
      sendFetch: (_leader, req, _bytes, _timeout, done) => sent.push({ req, done }),
    });
    for (const partition of [0, 1]) rm.applyPartitionState('orders', partition, { leader: 2, leaderEpoch: 1, partitionEpoch: 1, replicas: [1, 2], isr: [2], elr: [] });
    w.runUntil(w.now + 1000);
    const answer = (sessionId: number, parts: readonly number[]) =>
      sent[sent.length - 1]!.done({
        ok: true,
        response: {
          type: 'FetchResponse',
          correlationId: 0,
          error: 'NONE',
          sessionId,
          partitions: parts.map((partition) => ({ topic: 'orders', partition, error: 'NONE', highWatermark: 0, logStartOffset: 0, logEndOffset: 0, divergingEpoch: null, batches: [], currentLeader: null })),
        },
      });
    const shape = (i: number) => ({ epoch: sent[i]!.req.sessionEpoch, parts: sent[i]!.req.partitions.map((p) => p.partition), forgotten: sent[i]!.req.forgottenTopicsData.map((p) => p.partition) });
    expect(shape(0)).toEqual({ epoch: 0, parts: [0, 1], forgotten: [] });
    throttled.add(1);
    answer(9, [0, 1]);
    expect(shape(1)).toEqual({ epoch: 1, parts: [], forgotten: [1] });
    answer(9, []);
    expect(shape(2)).toEqual({ epoch: 2, parts: [], forgotten: [] });
    throttled.delete(1);
    answer(9, []);
    expect(shape(3)).toEqual({ epoch: 3, parts: [1], forgotten: [] });
    // Everything throttled: one request forgets the rest, then none until replica.fetch.backoff.ms has passed.
    throttled.add(0).add(1);
    answer(9, []);
    expect(shape(4)).toEqual({ epoch: 4, parts: [], forgotten: [0, 1] });
    answer(9, []);
    expect(sent).toHaveLength(5);
  });
});

describe('ReplicaManager: a fetch parked after its own read set something off', () => {
  it('checks once more after watching: an append its read caused (a coordinator writing on an HW advance) answers it at once', () => {
    // When orders-1's HW moves, a "coordinator" on this broker appends to orders-0, as the group and transaction
    // coordinators write when their own writes commit. The follower's fetch that moves that HW read orders-0
    // before the append; Kafka's tryCompleteElseWatch checks it again once it watches. [DelayedOperationPurgatory]
    let coordinatorWrote = false;
    const { w, rm, replies } = leaderBroker([1, 2], {
      onHighWatermarkIncreased: (p) => {
        rm.onHighWatermarkIncreased(p);
        if (p.partition !== 1 || coordinatorWrote) return;
        coordinatorWrote = true;
        rm.handleProduce('coordinator', { ...produce(90, 1), partitions: [{ topic: 'orders', partition: 0, batch: buildBatch([{ key: null, value: 'marker', timestamp: 0 }]) }] });
      },
    });
    rm.handleProduce('producer-1', { ...produce(1, -1), partitions: [{ topic: 'orders', partition: 1, batch: buildBatch([{ key: null, value: 'v1', timestamp: 0 }]) }] });
    rm.handleFetch('broker-2', followerFetch(2, 0)); // reads orders-1's record: answered at once
    expect(replies.map((r) => `${r.msg.type}:${r.msg.correlationId}`)).toEqual(['FetchResponse:2']);
    const next: FetchRequest = { ...followerFetch(3, 0), partitions: followerFetch(3, 0).partitions.map((p) => (p.partition === 1 ? { ...p, fetchOffset: 1, lastFetchedEpoch: 0 } : p)) };
    rm.handleFetch('broker-2', next);
    // The fetch moved orders-1's HW: the producer is answered, the coordinator appended to orders-0, and the
    // fetch goes at once with that record rather than after replica.fetch.wait.max.ms.
    expect(coordinatorWrote).toBe(true);
    expect(replies.map((r) => `${r.msg.type}:${r.msg.correlationId}`)).toEqual(['FetchResponse:2', 'ProduceResponse:1', 'ProduceResponse:90', 'FetchResponse:3']);
    const fetched = replies[3]!.msg as unknown as FetchResponse;
    expect(fetched.partitions.find((p) => p.partition === 0)!.batches.length).toBe(1);
    expect(w.now).toBe(0);
  });
});

describe('ReplicaManager: a caught-up follower\'s repeated session fetches', () => {
  // A follower in the ISR fetching an unchanged partition through its session reads nothing again and again; the
  // leader still records each fetch (lastCaughtUpTimeMs), so the ISR shrinks replica.lag.time.max.ms after it
  // last caught up, exactly as when every fetch is read in full (sessionless) [Partition.updateFollowerFetchState].
  function shrinkTimeMs(useSession: boolean, fetchUntilMs: number, produceAtMs: number, emptyLog = false): number {
    const at = emptyLog ? 0 : 1; // an empty log: the follower's fetch has no epoch (-1) while the leader's has 0
    const shrinks: number[] = [];
    const b = leaderBroker([1, 2], { sendAlterPartition: () => shrinks.push(Math.floor(b.w.now / 1000)) });
    const fetch = (id: number, sessionId: number, sessionEpoch: number, withPartitions: boolean) => ({
      ...followerFetch(id, at),
      maxWaitMs: 0,
      sessionId,
      sessionEpoch: useSession ? sessionEpoch : -1,
      partitions: withPartitions || !useSession ? followerFetch(id, at).partitions : [],
    });
    // One record in each partition; the follower's first (full) fetch reads it, the second is at the end.
    if (!emptyLog) b.rm.handleProduce('producer-1', produce(1, 1));
    b.rm.handleFetch('broker-2', { ...followerFetch(2, 0), maxWaitMs: 0, sessionEpoch: useSession ? 0 : -1 });
    const sessionId = (b.replies[emptyLog ? 0 : 1]!.msg as unknown as FetchResponse).sessionId;
    expect(sessionId > 0).toBe(useSession);
    b.rm.handleFetch('broker-2', fetch(3, sessionId, 1, true));
    let epoch = 2;
    for (let t = 1000; t <= 60_000; t += 1000) {
      b.w.runUntil(t * 1000);
      if (produceAtMs === t) b.rm.handleProduce('producer-1', produce(100 + t, 1)); // the follower falls behind
      if (t <= fetchUntilMs) b.rm.handleFetch('broker-2', fetch(t, sessionId, epoch++, false));
      for (const p of b.rm.partitions.values()) p.maybeShrinkIsr();
    }
    return shrinks[0] ?? -1;
  }

  it('a follower that stops fetching is shrunk 30 s after its last caught-up fetch, the same with a session as with full reads', () => {
    const inSession = shrinkTimeMs(true, 20_000, 25_000);
    expect(inSession).toBe(51_000); // the first check more than replica.lag.time.max.ms (30 s) after 20 s
    expect(shrinkTimeMs(false, 20_000, 25_000)).toBe(inSession);
    // The same for empty logs, whose fetches skip the caught-up shortcut (no epoch to match) but read nothing.
    expect(shrinkTimeMs(true, 20_000, 25_000, true)).toBe(51_000);
    expect(shrinkTimeMs(false, 20_000, 25_000, true)).toBe(51_000);
  });

  it('a follower still fetching but behind since an append is shrunk 30 s after it last caught up, with or without a session', () => {
    // At 10 s a produce lands; the follower keeps fetching at offset 1 (it never appends): it was last caught up
    // as of its fetch at 9 s, the last one that had everything the leader had.
    const inSession = shrinkTimeMs(true, 60_000, 10_000);
    expect(inSession).toBe(40_000);
    expect(shrinkTimeMs(false, 60_000, 10_000)).toBe(inSession);
  });
});
