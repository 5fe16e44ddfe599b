import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ofKind as eventsOfKind, type TraceEvent, type TraceEventOf, type TraceKind } from '../../sim/core/trace';
import { describeGroups } from '../../sim/check/describe';
import { CONSUMER_OFFSETS_TOPIC } from '../../sim/kafka/broker/groupCoordinatorService';
import { replayRecords } from '../../sim/kafka/coordinator/groupCoordinatorRecords';
import { partitionForGroup } from '../../sim/kafka/coordinator/groupCoordinatorPartition';
import { runScenario, type RunResult } from '../../sim/scenario/runner';
import type { ConsumerSpec, ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';
import type { FaultEntry } from '../../sim/world/nemesis';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkPartitionOwnership } from '../../sim/check/partitionOwnership';

// Issue 8's done-means on the real cluster (brokers with the embedded group coordinator, __consumer_offsets
// replicated through the replica manager), where the scenario library does not already cover them: the
// exclusive-ownership property over random consumer failures, at-least-once through them, eviction after
// max.poll.interval.ms, offsets stored in the group's own __consumer_offsets partition, and a coordinator failover.

const OFFSETS_PARTITIONS = 5;

function run(spec: ScenarioSpec, seed: number): RunResult {
  return runScenario(validateScenario(spec), { seed, hash: false });
}

const count = (r: RunResult, check: string): number => r.checks[check]?.count ?? 0;
const ofKind = <K extends TraceKind>(r: RunResult, kind: K): TraceEventOf<K>[] => eventsOfKind(r.trace, kind);

// ---- the property ----

type Strategy = 'range' | 'roundrobin' | 'sticky' | 'cooperative-sticky';

interface ConsumerFault {
  readonly kind: 'crash' | 'pause' | 'stall';
  readonly consumer: number;
  readonly atMs: number;
  readonly durationMs: number;
}

interface Case {
  readonly strategy: Strategy;
  readonly staticMembers: boolean;
  readonly recordMs: number;
  readonly faults: readonly ConsumerFault[];
}

const CONSUMERS = 4;
const DURATION_MS = 30_000;
/** Long enough for every member to be back, expired ghosts to be gone, the group to settle and drain. */
const QUIET_MS = 25_000;

const caseArb: fc.Arbitrary<Case> = fc.record({
  strategy: fc.constantFrom<Strategy>('range', 'roundrobin', 'sticky', 'cooperative-sticky'),
  staticMembers: fc.boolean(),
  recordMs: fc.constantFrom(1, 5, 20),
  faults: fc.array(
    fc.record({
      kind: fc.constantFrom<ConsumerFault['kind']>('crash', 'pause', 'stall'),
      consumer: fc.integer({ min: 0, max: CONSUMERS - 1 }),
      atMs: fc.integer({ min: 7_000, max: 25_000 }),
      durationMs: fc.integer({ min: 200, max: 12_000 }),
    }),
    { maxLength: 4 },
  ),
});

function groupSpec(c: Case): ScenarioSpec {
  const consumers: ConsumerSpec[] = Array.from({ length: CONSUMERS }, (_, i) => ({
    id: `c${i}`,
    group: 'g',
    topics: ['t'],
    config: {
      'auto.offset.reset': 'earliest',
      'partition.assignment.strategy': [c.strategy],
      'session.timeout.ms': 6000,
      'heartbeat.interval.ms': 1000,
      // Stalls up to 12 s: longer ones exceed it, and the member is evicted.
      'max.poll.interval.ms': 8000,
      'max.poll.records': 50,
      ...(c.staticMembers ? { 'group.instance.id': `i${i}` } : {}),
    },
    processing: {
      recordTime: { kind: 'exponential', meanMs: c.recordMs },
      stalls: c.faults.filter((f) => f.kind === 'stall' && f.consumer === i).map((f) => ({ at: f.atMs, duration: f.durationMs })),
    },
  }));
  const faults: FaultEntry[] = c.faults.filter((f) => f.kind !== 'stall').map((f) => ({ at: f.atMs, fault: f.kind as 'crash' | 'pause', targets: [`c${f.consumer}`], duration: f.durationMs }));
  return {
    id: 'group-ownership-property',
    duration: DURATION_MS,
    quiet: QUIET_MS,
    cluster: { controllers: 1, brokers: 3, broker: { 'offsets.topic.num.partitions': OFFSETS_PARTITIONS } },
    topics: [{ name: 't', partitions: 6, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
    producers: [{ id: 'p', workload: { topic: 't', rate: 40, keys: { kind: 'uniform', count: 200 } } }],
    consumers,
    faults,
  };
}

describe('consumer groups on the real cluster', () => {
  it('no two members of a group own one partition at the same moment, and every record is processed, whatever consumers crash, pause or stall', () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 1, max: 1_000_000 }), (c, seed) => {
        const r = run(groupSpec(c), seed);
        const where = `${JSON.stringify(c)} seed ${seed}`;
        // Ownership as the coordinator grants it: a member the coordinator removed (or left behind in an older
        // generation) may still believe it owns its partitions until it hears otherwise; those zombie claims do
        // not count (partitionOwnership.ts says why). The checkers' group-overlap is the clients' own view.
        const ownership = checkPartitionOwnership(r.trace);
        expect(ownership.assignments, where).toBeGreaterThan(0);
        expect(ownership.violations, where).toEqual([]);
        // A crashed member's claims die with it, and a crash leaves no zombie behind, so with crashes only the
        // clients' view agrees.
        if (c.faults.every((f) => f.kind === 'crash')) expect(count(r, 'group-overlap'), where).toBe(0);
        // At-least-once through all of it: processing on the polling thread with auto-commit commits only what
        // earlier polls returned, so every acknowledged record is processed by the group in the end.
        expect(count(r, 'acked'), where).toBeGreaterThan(0);
        expect(r.checks['unprocessed.g']!.examples, where).toEqual([]);
        expect(count(r, 'lag.final.g'), where).toBe(0);
        expect(r.checks['commit-backwards']!.examples, where).toEqual([]);
      }),
      {
        numRuns: Number(process.env.GROUP_OWNERSHIP_RUNS ?? 40),
        examples: [
          // A pause of the group's leader through the session timeout, and a stall past max.poll.interval.ms.
          [{ strategy: 'cooperative-sticky', staticMembers: false, recordMs: 5, faults: [{ kind: 'pause', consumer: 0, atMs: 8_000, durationMs: 9_000 }, { kind: 'stall', consumer: 1, atMs: 10_000, durationMs: 10_000 }] }, 7],
          // Static members: a crash shorter than the session timeout (no rebalance) and a longer one.
          [{ strategy: 'range', staticMembers: true, recordMs: 1, faults: [{ kind: 'crash', consumer: 2, atMs: 9_000, durationMs: 2_000 }, { kind: 'crash', consumer: 3, atMs: 15_000, durationMs: 9_000 }] }, 11],
        ],
      },
    );
  });

  it('consumer-lag-restart: committed 1,200 against a log end of 1,500 is a lag of 300, and exactly 1,200 to 1,499 are read again', () => {
    const spec = JSON.parse(readFileSync(join(process.cwd(), 'scenarios', 'consumer-lag-restart.json'), 'utf8')) as ScenarioSpec;
    for (const seed of [1, 2]) {
      const r = run(spec, seed);
      const crash = ofKind(r, 'host.crash')[0]!;
      // At the crash: the last successful commit said 1,200 and the partition's high watermark was 1,500.
      const committed = ofKind(r, 'consumer.commit').filter((e) => e.ok && e.t < crash.t).at(-1)!;
      expect((committed.offsets as { offset: number }[])[0]!.offset).toBe(1200);
      const hwAtCrash = ofKind(r, 'replica.hw').filter((e) => e.t < crash.t && e.topic === 'orders').at(-1)!;
      expect(hwAtCrash.hw).toBe(1500);
      // After the restart the consumer starts at the committed offset, and the offsets read twice are 1,200..1,499.
      const reads = new Map<number, number>();
      for (const e of ofKind(r, 'consumer.poll')) for (const part of e.records as { offsets: number[] }[]) for (const o of part.offsets) reads.set(o, (reads.get(o) ?? 0) + 1);
      const twice = [...reads].filter(([, n]) => n > 1).map(([o]) => o).sort((a, b) => a - b);
      expect(twice).toEqual(Array.from({ length: 300 }, (_, i) => 1200 + i));
      expect([...reads.values()].every((n) => n <= 2)).toBe(true);
      const firstAfter = ofKind(r, 'consumer.poll').find((e) => e.t > crash.t)!;
      expect((firstAfter.records as { offsets: number[] }[])[0]!.offsets[0]).toBe(1200);
    }
  });

  it('a member that does not poll within max.poll.interval.ms leaves the group, which rebalances and gives its partitions to the others', () => {
    const spec: ScenarioSpec = {
      id: 'max-poll-interval-eviction',
      duration: '30s',
      quiet: '5s',
      cluster: { controllers: 1, brokers: 3, broker: { 'offsets.topic.num.partitions': OFFSETS_PARTITIONS } },
      topics: [{ name: 't', partitions: 4, replicationFactor: 3 }],
      producers: [{ id: 'p', workload: { topic: 't', rate: 40, keys: { kind: 'uniform', count: 100 } } }],
      consumers: [
        { id: 'slow', group: 'g', topics: ['t'], config: { 'auto.offset.reset': 'earliest', 'max.poll.interval.ms': 5000 }, processing: { stalls: [{ at: '10s', duration: '8s' }] } },
        { id: 'fast', group: 'g', topics: ['t'], config: { 'auto.offset.reset': 'earliest', 'max.poll.interval.ms': 5000 } },
      ],
    };
    for (const seed of [1, 2]) {
      const r = run(spec, seed);
      const t0 = r.startUs;
      // The heartbeat thread notices 5 s after the last poll (the stall began at 10 s) and sends LeaveGroup.
      const leave = ofKind(r, 'consumer.leave').find((e) => e.node === 'slow')!;
      expect(leave.reason).toBe('consumer poll timeout has expired');
      expect(leave.sent).toBe(true);
      expect((leave.t - t0) / 1000).toBeGreaterThanOrEqual(15_000);
      expect((leave.t - t0) / 1000).toBeLessThan(15_200);
      const gone = ofKind(r, 'group.member.leave').find((e) => e.memberId === leave.memberId)!;
      expect(gone.reason).toBe('consumer poll timeout has expired');
      // The rebalance that follows gives every partition to the fast member until the slow one rejoins.
      const next = ofKind(r, 'consumer.assignment').find((e) => e.node === 'fast' && e.t > gone.t && (e.owned as string[]).length === 4);
      expect(next, `seed ${seed}`).toBeDefined();
      // The slow member learns it lost its partitions when it polls again after the stall, at 18 s.
      const lost = ofKind(r, 'consumer.assignment').find((e) => e.node === 'slow' && (e.lost as string[]).length > 0)!;
      expect((lost.t - t0) / 1000).toBeGreaterThanOrEqual(18_000);
      expect(count(r, 'unprocessed.g')).toBe(0);
    }
  });

  it('offsets live in the group\'s own __consumer_offsets partition; two groups keep their own, as kafka-consumer-groups --describe shows', () => {
    const spec: ScenarioSpec = {
      id: 'two-groups-own-offsets',
      duration: '20s',
      quiet: '0s',
      cluster: { controllers: 1, brokers: 3, broker: { 'offsets.topic.num.partitions': OFFSETS_PARTITIONS } },
      topics: [{ name: 't', partitions: 2, replicationFactor: 3 }],
      producers: [{ id: 'p', workload: { topic: 't', rate: 60, stop: '15s', keys: { kind: 'uniform', count: 100 } } }],
      consumers: [
        { id: 'fast', group: 'billing', topics: ['t'], config: { 'auto.offset.reset': 'earliest', 'enable.auto.commit': false }, processing: { commit: 'sync' } },
        // 50 ms a record: 20 a second against 60 arriving, so this group trails further and further behind.
        { id: 'slow', group: 'analytics', topics: ['t'], config: { 'auto.offset.reset': 'earliest', 'enable.auto.commit': false }, processing: { commit: 'sync', recordTime: { kind: 'fixed', ms: 50 } } },
      ],
    };
    const r = run(spec, 3);
    const rows = describeGroups(r.trace);
    const final = new Map(ofKind(r, 'final.partition').filter((e) => e.topic === 't').map((e) => [e.partition, e.highWatermark]));
    for (const p of [0, 1]) {
      const billing = rows.find((x) => x.group === 'billing' && x.partition === p)!;
      const analytics = rows.find((x) => x.group === 'analytics' && x.partition === p)!;
      // LOG-END-OFFSET is the partition's high watermark; LAG = LOG-END-OFFSET - CURRENT-OFFSET.
      expect(billing.logEndOffset).toBe(final.get(p));
      expect(billing.lag).toBe(billing.logEndOffset - billing.currentOffset!);
      expect(analytics.lag).toBe(analytics.logEndOffset - analytics.currentOffset!);
      expect(billing.lag).toBe(0);
      // Independent offsets: analytics processed about 20 records a second for 14 s, far fewer than billing.
      expect(analytics.currentOffset!).toBeLessThan(billing.currentOffset! / 2);
    }
    for (const group of ['billing', 'analytics']) {
      // FindCoordinator pointed at the leader of partition abs(hashCode(groupId)) % offsets.topic.num.partitions ...
      const partition = partitionForGroup(group, OFFSETS_PARTITIONS);
      const image = r.cluster.image()!;
      const leader = image.partitionByName(CONSUMER_OFFSETS_TOPIC, partition)!.leader;
      const served = ofKind(r, 'group.offset.commit').filter((e) => e.group === group);
      expect(served.length).toBeGreaterThan(0);
      expect(new Set(served.map((e) => e.node))).toEqual(new Set([`broker-${leader}`]));
      // ... and that partition's log holds the group's committed offsets: replaying it (as a new coordinator
      // would on failover) gives exactly what the tool shows.
      const log = r.cluster.broker(leader)!.replicas.partition(CONSUMER_OFFSETS_TOPIC, partition)!.log;
      const records: { key: string; value: string | null }[] = [];
      for (let pos = log.logStartOffset; pos < log.logEndOffset; ) {
        const read = log.read(pos, 1 << 30, log.logEndOffset, true);
        if (read.error || read.batches.length === 0) break;
        for (const b of read.batches) {
          for (const rec of b.recordList()) if (rec.key !== null) records.push({ key: rec.key, value: rec.value });
          pos = Math.max(pos, b.baseOffset + b.lastOffsetDelta + 1);
        }
      }
      const stored = replayRecords(records).offsets.get(group)!;
      for (const p of [0, 1]) expect(stored.get(`t-${p}`)!.offset).toBe(rows.find((x) => x.group === group && x.partition === p)!.currentOffset);
    }
  });

  it('when the coordinator\'s broker dies, the group finds the new leader of its __consumer_offsets partition, which reloads the offsets, and carries on', () => {
    const partition = partitionForGroup('g', OFFSETS_PARTITIONS);
    const spec: ScenarioSpec = {
      id: 'coordinator-failover',
      duration: '40s',
      quiet: '15s',
      cluster: { controllers: 1, brokers: 3, broker: { 'offsets.topic.num.partitions': OFFSETS_PARTITIONS } },
      topics: [{ name: 't', partitions: 3, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
      producers: [{ id: 'p', workload: { topic: 't', rate: 40, keys: { kind: 'uniform', count: 100 } } }],
      consumers: [1, 2].map((i) => ({ id: `c${i}`, group: 'g', topics: ['t'], config: { 'auto.offset.reset': 'earliest', 'auto.commit.interval.ms': 1000 } })),
      faults: [{ at: '15s', fault: 'crash', targets: [`leader:${CONSUMER_OFFSETS_TOPIC}/${partition}`], duration: '10s' }],
    };
    for (const seed of [1, 2]) {
      const r = run(spec, seed);
      const crash = ofKind(r, 'host.crash')[0]!;
      const old = crash.node;
      // Another broker loads the partition and serves the group from then on.
      const load = ofKind(r, 'group.load').find((e) => e.t > crash.t && e.partition === partition && e.node !== old);
      expect(load, `seed ${seed}`).toBeDefined();
      expect(load!.groups as string[]).toContain('g');
      const after = ofKind(r, 'group.offset.commit').filter((e) => e.t > load!.t && e.group === 'g' && e.error === 'NONE');
      expect(after.length).toBeGreaterThan(0);
      expect(new Set(after.map((e) => e.node)).has(old)).toBe(false);
      // Nothing committed was forgotten: offsets never move back, no record is skipped, the group catches up.
      expect(r.checks['commit-backwards']!.examples).toEqual([]);
      expect(count(r, 'unprocessed.g')).toBe(0);
      expect(count(r, 'lag.final.g')).toBe(0);
      // The group did not start over: its reads after the failover repeat at most a little of what it read before.
      expect(count(r, 're-reads.g')).toBeLessThan(count(r, 'records-read.g') / 10);
    }
  });
});
