import { describe, expect, it } from 'vitest';
import { ofKind } from '../../../sim/core/trace';
import type { FetchResponse, ProduceResponse } from '../../../sim/kafka/protocol';
import { runScenario } from '../../../sim/scenario/runner';
import { validateScenario } from '../../../sim/scenario/validate';

// KIP-951: a broker that answers NOT_LEADER_OR_FOLLOWER names the leader it knows, and the client goes there at once.
describe('leader hints in Produce and Fetch responses (KIP-951)', () => {
  const r = runScenario(
    validateScenario({
      id: 'kip-951',
      duration: '6s',
      quiet: '1s',
      trace: 'full',
      topics: [{ name: 't', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
      producers: [{ id: 'p', config: { acks: 'all' }, workload: { topic: 't', rate: 200 } }],
      consumers: [{ id: 'c', topics: ['t'], config: { 'auto.offset.reset': 'earliest' } }],
      // A controlled shutdown moves the leadership while the old leader still answers.
      faults: [{ at: '2s', fault: 'stop', targets: ['leader:t/0'] }],
    }),
  );
  const sends = ofKind(r.trace, 'net.send');
  const newLeader = ofKind(r.trace, 'controller.election').find((e) => e.t > r.startUs)!;

  it('the old leader names the new leader and lists it as a node endpoint', () => {
    const hinted = sends.filter((e) => e.type === 'ProduceResponse' && (e.msg as ProduceResponse).partitions.some((p) => p.error === 'NOT_LEADER_OR_FOLLOWER'));
    expect(hinted.length).toBeGreaterThan(0);
    const resp = hinted[0]!.msg as ProduceResponse;
    expect(resp.partitions[0]!.currentLeader).toEqual({ leaderId: newLeader.leader, leaderEpoch: newLeader.leaderEpoch });
    expect(resp.nodeEndpoints).toEqual([newLeader.leader]);
    // The consumer's fetch from the old leader is answered the same way.
    const fetchHints = sends.filter((e) => e.type === 'FetchResponse' && e.to === 'c' && (e.msg as FetchResponse).partitions.some((p) => p.error === 'NOT_LEADER_OR_FOLLOWER' || p.error === 'FENCED_LEADER_EPOCH'));
    for (const e of fetchHints) {
      const m = e.msg as FetchResponse;
      for (const p of m.partitions) if (p.error !== 'NONE') expect(p.currentLeader).toEqual({ leaderId: newLeader.leader, leaderEpoch: newLeader.leaderEpoch });
      expect(m.nodeEndpoints).toEqual([newLeader.leader]);
    }
  });

  it('the producer retries at the named leader without waiting for a Metadata answer', () => {
    const hinted = sends.find((e) => e.type === 'ProduceResponse' && e.to === 'p' && (e.msg as ProduceResponse).partitions.some((p) => p.error === 'NOT_LEADER_OR_FOLLOWER'))!;
    const retry = sends.find((e) => e.t >= hinted.arrive && e.node === 'p' && e.type === 'Produce')!;
    expect(retry.to).toBe(`broker-${newLeader.leader}`);
    const metadataBetween = sends.filter((e) => e.type === 'MetadataResponse' && e.to === 'p' && e.arrive > hinted.arrive && e.arrive <= retry.t);
    expect(metadataBetween).toEqual([]);
    expect(r.checks['lost-write']!.count).toBe(0);
  });
});
