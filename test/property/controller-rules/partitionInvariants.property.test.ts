import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { alterConfigs } from '../../../sim/kafka/controller/rules/alterConfigs';
import { alterPartition } from '../../../sim/kafka/controller/rules/alterPartition';
import { handleBrokerFenced, handleBrokerUnfenced } from '../../../sim/kafka/controller/rules/brokerFencing';
import { registerBroker } from '../../../sim/kafka/controller/rules/brokerRegistration';
import { handleBrokerInControlledShutdown } from '../../../sim/kafka/controller/rules/controlledShutdown';
import type { ControllerResult } from '../../../sim/kafka/controller/rules/controllerResult';
import { createTopic } from '../../../sim/kafka/controller/rules/createTopic';
import { maybeBalancePartitionLeaders } from '../../../sim/kafka/controller/rules/preferredLeaderElection';
import { maybeElectUncleanLeaders } from '../../../sim/kafka/controller/rules/uncleanLeaderElection';
import { bootstrapRecords } from '../../../sim/kafka/metadata/bootstrap';
import { MetadataImage } from '../../../sim/kafka/metadata/metadataImage';
import type { PartitionRegistration } from '../../../sim/kafka/metadata/partitionRegistration';
import { NO_LEADER, type MetadataRecord } from '../../../sim/kafka/metadata/records';

// A controller without Raft, driven through generated broker events (crashes, clean shutdowns, restarts,
// unfencing, controlled shutdowns), leader AlterPartitions (valid and stale), preferred and unclean election
// runs and min.insync.replicas changes. After every rule call the returned records are replayed and the
// invariants of reference 5.5/5.6 are checked against the state before and after.

type Command =
  | { kind: 'crash'; b: number }
  | { kind: 'shutdown'; b: number }
  | { kind: 'enterControlledShutdown'; b: number }
  | { kind: 'restart'; b: number }
  | { kind: 'bounce'; b: number; clean: boolean }
  | { kind: 'unfence'; b: number }
  | { kind: 'alter'; p: number; mask: number; stale: 0 | 1 | 2; epochCheck: boolean }
  | { kind: 'rebalance' }
  | { kind: 'uncleanRetry' }
  | { kind: 'minIsr'; value: number };

const broker = fc.integer({ min: 0, max: 4 });
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: broker.map((b) => ({ kind: 'crash' as const, b })) },
  { weight: 2, arbitrary: broker.map((b) => ({ kind: 'shutdown' as const, b })) },
  { weight: 1, arbitrary: broker.map((b) => ({ kind: 'enterControlledShutdown' as const, b })) },
  { weight: 3, arbitrary: broker.map((b) => ({ kind: 'restart' as const, b })) },
  { weight: 4, arbitrary: broker.map((b) => ({ kind: 'unfence' as const, b })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('bounce' as const), b: broker, clean: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('alter' as const),
      p: fc.integer({ min: 0, max: 3 }),
      mask: fc.integer({ min: 0, max: 31 }),
      stale: fc.constantFrom(0 as const, 0 as const, 1 as const, 2 as const),
      epochCheck: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'rebalance' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'uncleanRetry' as const }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((value) => ({ kind: 'minIsr' as const, value })) },
);

const scenario = fc.record({
  elr: fc.boolean(),
  unclean: fc.boolean(),
  brokers: fc.integer({ min: 3, max: 5 }),
  partitions: fc.integer({ min: 1, max: 4 }),
  replicationFactor: fc.constantFrom(1, 2, 3, 3, 3),
  minIsr: fc.integer({ min: 1, max: 4 }),
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  commands: fc.array(command, { maxLength: 80 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

class Controller {
  readonly image = new MetadataImage();
  private offset = 0;
  private incarnation = 0;
  readonly cleanEpoch = new Map<number, number>();

  constructor(readonly s: Scenario) {}

  append(records: readonly MetadataRecord[]): void {
    this.image.replayAll(records, this.offset);
    this.offset += records.length;
  }

  /** Applies a rule's result after checking its elections against the state it was computed from. */
  apply<T>(result: ControllerResult<T>, acceptableBefore: (b: number) => boolean): T {
    const before = new Map<string, PartitionRegistration>();
    for (const t of this.image.topics()) t.partitions.forEach((p, i) => before.set(`${t.topicId}:${i}`, p));
    for (const e of result.elections) {
      const prev = before.get(`${e.topicId}:${e.partitionId}`)!;
      expect(prev.leader).toBe(e.previousLeader);
      if (e.newLeader === NO_LEADER) continue;
      expect(prev.replicas).toContain(e.newLeader);
      expect(acceptableBefore(e.newLeader)).toBe(true);
      const uncleanAllowed = this.image.uncleanLeaderElectionEnabled('t');
      if (!this.s.elr) expect(['ISR', ...(uncleanAllowed ? ['UNCLEAN'] : [])]).toContain(e.source);
      if (!uncleanAllowed) {
        // Clean: from the ISR, or (KIP-966) from the ELR, or the KIP-966 last known leader (ELR on only).
        if (e.source === 'LAST_KNOWN_LEADER') {
          expect(this.s.elr).toBe(true);
          expect(prev.lastKnownElr).toEqual([e.newLeader]);
        } else {
          expect([...prev.isr, ...prev.elr]).toContain(e.newLeader);
        }
      }
    }
    this.append(result.records);
    this.checkPartitions(before);
    // Every leader change in the records is reported, for the trace.
    for (const [key, prev] of before) {
      const [topicId, partitionId] = key.split(':') as [string, string];
      const now = this.image.partition(topicId, Number(partitionId))!;
      if (now.leader !== prev.leader) {
        expect(result.elections.filter((e) => e.topicId === topicId && e.partitionId === Number(partitionId)).map((e) => e.newLeader)).toEqual([now.leader]);
      }
    }
    for (const e of result.elections) {
      const after = this.image.partition(e.topicId, e.partitionId)!;
      if (e.source === 'UNCLEAN' || e.source === 'LAST_KNOWN_LEADER') {
        // Unclean: the new leader alone in the ISR, recovering; the ELR state is gone.
        expect([after.isr, after.elr, after.lastKnownElr, after.leaderRecoveryState]).toEqual([[e.newLeader], [], [], 'RECOVERING']);
      } else if (e.source === 'ELR') {
        expect(after.isr).toEqual([e.newLeader]);
      }
    }
    return result.response;
  }

  checkPartitions(before: Map<string, PartitionRegistration>): void {
    for (const t of this.image.topics()) {
      t.partitions.forEach((p, i) => {
        const fail = (what: string) => {
          throw new Error(`${t.name}-${i}: ${what}: ${JSON.stringify(p)}`);
        };
        if (p.leader !== NO_LEADER) {
          if (!p.replicas.includes(p.leader)) fail('leader is not a replica');
          if (!p.isr.includes(p.leader)) fail('leader is not in the ISR');
          if (!this.image.isActive(p.leader)) fail('leader is fenced or shutting down');
        }
        if (new Set(p.isr).size !== p.isr.length || new Set(p.elr).size !== p.elr.length) fail('duplicate member');
        for (const r of p.isr) if (!p.replicas.includes(r)) fail('ISR member is not a replica');
        for (const r of p.elr) {
          if (!p.replicas.includes(r)) fail('ELR member is not a replica');
          if (p.isr.includes(r)) fail('ISR ∩ ELR is not empty');
        }
        if (!this.s.elr && p.isr.length === 0) fail('empty ISR without ELR');
        if (!this.s.elr && (p.elr.length > 0 || p.lastKnownElr.length > 0)) fail('ELR state without ELR');
        if (p.lastKnownElr.length > 1) fail('LastKnownELR holds more than the last leader');
        const prev = before.get(`${t.topicId}:${i}`);
        if (prev) {
          if (p.leaderEpoch < prev.leaderEpoch || p.partitionEpoch < prev.partitionEpoch) fail('an epoch went down');
          if (p.leader !== prev.leader && p.leaderEpoch <= prev.leaderEpoch) fail('leader changed without a leader-epoch bump');
          if (p !== prev && p.partitionEpoch <= prev.partitionEpoch) fail('changed without a partition-epoch bump');
        }
      });
    }
  }

  register(b: number, previousBrokerEpoch: number): void {
    const reply = this.apply(
      registerBroker(this.image, { brokerId: b, incarnationId: `b${b}-${++this.incarnation}`, rack: null, previousBrokerEpoch }, this.offset, false),
      (r) => this.image.isActive(r) && r !== b,
    );
    expect(reply.error).toBe('NONE');
  }

  unfence(b: number): void {
    this.apply(handleBrokerUnfenced(this.image, b, this.image.broker(b)!.epoch), (r) => r === b || this.image.isActive(r));
  }

  fence(b: number): void {
    this.apply(handleBrokerFenced(this.image, b), (r) => r !== b && this.image.isActive(r));
  }

  run(cmd: Command): void {
    const active = (r: number) => this.image.isActive(r);
    const c = 'b' in cmd ? { ...cmd, b: cmd.b % this.s.brokers } : cmd;
    const reg = 'b' in c ? this.image.broker(c.b) : undefined;
    switch (c.kind) {
      case 'crash':
        if (reg && !reg.fenced) this.fence(c.b);
        this.cleanEpoch.delete(c.b);
        return;
      case 'enterControlledShutdown':
        if (reg && !reg.fenced) this.apply(handleBrokerInControlledShutdown(this.image, c.b, reg.epoch), (r) => r !== c.b && active(r));
        return;
      case 'shutdown':
        if (reg && !reg.fenced) {
          this.apply(handleBrokerInControlledShutdown(this.image, c.b, reg.epoch), (r) => r !== c.b && active(r));
          this.fence(c.b);
          this.cleanEpoch.set(c.b, reg.epoch);
        }
        return;
      case 'restart':
        if (reg && reg.fenced) {
          this.register(c.b, this.cleanEpoch.get(c.b) ?? -1);
          this.cleanEpoch.delete(c.b);
        }
        return;
      case 'bounce':
        // A crash or a clean shutdown, the restart, and the unfencing once it caught up.
        this.run({ kind: c.clean ? 'shutdown' : 'crash', b: c.b });
        this.run({ kind: 'restart', b: c.b });
        this.run({ kind: 'unfence', b: c.b });
        return;
      case 'unfence':
        // A broker that began a controlled shutdown never asks to be unfenced again: it stops, and returns as a
        // new incarnation. A crashed (partitioned) one heals and unfences with the same incarnation.
        if (reg && reg.fenced && !reg.inControlledShutdown) this.unfence(c.b);
        return;
      case 'alter': {
        const p = this.image.partitionByName('t', c.p % this.s.partitions);
        if (!p || p.leader === NO_LEADER) return;
        const newIsr = [p.leader, ...p.replicas.filter((r, i) => r !== p.leader && (c.mask >> i) & 1)];
        const reply = this.apply(
          alterPartition(this.image, {
            brokerId: p.leader,
            brokerEpoch: this.image.broker(p.leader)!.epoch,
            topic: 't',
            partition: c.p % this.s.partitions,
            leaderEpoch: p.leaderEpoch - (c.stale === 1 ? 1 : 0),
            partitionEpoch: p.partitionEpoch - (c.stale === 2 ? 1 : 0),
            newIsr: newIsr.map((r) => ({ brokerId: r, brokerEpoch: c.epochCheck ? (this.image.broker(r)?.epoch ?? -1) : -1 })),
          }),
          active,
        );
        if (c.stale === 1 && p.leaderEpoch > 0) expect(reply.error).toBe('FENCED_LEADER_EPOCH');
        if (c.stale === 2 && p.partitionEpoch > 0) expect(reply.error).toBe('INVALID_UPDATE_VERSION');
        if (reply.error === 'NONE') expect(this.image.partitionByName('t', c.p % this.s.partitions)!.isr).toEqual(newIsr);
        return;
      }
      case 'rebalance':
        this.apply(maybeBalancePartitionLeaders(this.image), active);
        return;
      case 'uncleanRetry':
        this.apply(maybeElectUncleanLeaders(this.image), active);
        return;
      case 'minIsr':
        this.apply(alterConfigs(this.image, [{ resourceType: 'TOPIC', resourceName: 't', name: 'min.insync.replicas', value: String(c.value) }]), active);
        if (this.s.elr) for (const p of this.image.topicByName('t')!.partitions) expect(p.elr).toEqual([]);
        return;
    }
  }
}

function runScenario(s: Scenario): void {
  const c = new Controller(s);
  c.append(bootstrapRecords({ eligibleLeaderReplicas: s.elr }));
  for (let b = 0; b < s.brokers; b++) {
    c.register(b, -1);
    c.unfence(b);
  }
  const rf = Math.min(s.replicationFactor, s.brokers);
  const configs: Record<string, string> = { 'min.insync.replicas': String(s.minIsr), 'unclean.leader.election.enable': String(s.unclean) };
  const created = createTopic(c.image, { name: 't', numPartitions: s.partitions, replicationFactor: rf, configs }, Random.root(s.seed), 'T');
  expect(created.response.error).toBe('NONE');
  c.apply(created, () => true);
  for (const cmd of s.commands) c.run(cmd);
}

describe('controller rules: partition invariants under broker events and AlterPartition', () => {
  it('leader ∈ replicas ∩ ISR and active; clean elections only from ISR / ELR / last known leader; epochs only grow; ISR ∩ ELR = ∅; ELR ⊆ replicas; no empty ISR without ELR', () => {
    fc.assert(fc.property(scenario, runScenario), { numRuns: 1000 });
  });

  it('with ELR on and unclean election off, a replica that re-registers uncleanly leaves every ISR and ELR and leads nothing', () => {
    // The KIP-966 guarantee at the rule level: an unclean restart removes the broker from ISR and ELR (and it is
    // not a leader), so only the last-known-leader rule (ISR and ELR both empty) can pick it before the leader
    // adds it back to the ISR.
    fc.assert(
      fc.property(scenario, (s0) => {
        const s = { ...s0, elr: true, unclean: false };
        const c = new Controller(s);
        c.append(bootstrapRecords({ eligibleLeaderReplicas: true }));
        for (let b = 0; b < s.brokers; b++) {
          c.register(b, -1);
          c.unfence(b);
        }
        const rf = Math.min(s.replicationFactor, s.brokers);
        c.apply(createTopic(c.image, { name: 't', numPartitions: s.partitions, replicationFactor: rf, configs: { 'min.insync.replicas': String(s.minIsr) } }, Random.root(s.seed), 'T'), () => true);
        for (const cmd of s.commands) {
          const b = cmd.kind === 'restart' ? cmd.b % s.brokers : -1;
          const wasUnclean = b >= 0 && c.image.broker(b)?.fenced === true && !c.cleanEpoch.has(b);
          c.run(cmd);
          if (wasUnclean) {
            for (const p of c.image.topicByName('t')!.partitions) {
              expect(p.isr).not.toContain(b);
              expect(p.elr).not.toContain(b);
              expect(p.leader).not.toBe(b);
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
