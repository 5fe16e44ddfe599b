import { describe, expect, it } from 'vitest';
import { electLeader } from '../../../sim/kafka/controller/rules/electLeader';
import { MAX_ELECTIONS_PER_IMBALANCE, maybeBalancePartitionLeaders } from '../../../sim/kafka/controller/rules/preferredLeaderElection';
import { maybeElectUncleanLeaders } from '../../../sim/kafka/controller/rules/uncleanLeaderElection';
import { KAFKA_CONTROLLER_TIMER_DEFAULTS } from '../../../sim/kafka/controller/rules/controllerConfigs';
import { NO_LEADER } from '../../../sim/kafka/metadata/records';
import { TestCluster } from './testCluster';

function cluster(elr: boolean, brokers: number[]): TestCluster {
  const c = new TestCluster({ elr });
  for (const b of brokers) {
    c.startBroker(b);
    c.unfence(b);
  }
  return c;
}

describe('auto leader rebalance [ReplicationControlManager.maybeBalancePartitionLeaders]', () => {
  it('defaults: auto.leader.rebalance.enable true, every 300 s, at most 1000 records per run', () => {
    expect(KAFKA_CONTROLLER_TIMER_DEFAULTS.autoLeaderRebalanceEnable).toBe(true);
    expect(KAFKA_CONTROLLER_TIMER_DEFAULTS.leaderImbalanceCheckIntervalSeconds).toBe(300);
    expect(MAX_ELECTIONS_PER_IMBALANCE).toBe(1000);
  });

  it('moves leadership back to the preferred replica once it is in the ISR again', () => {
    const c = cluster(false, [1, 2, 3]);
    c.createTopic('t', [
      [1, 2, 3],
      [2, 3, 1],
    ]);
    c.fence(1);
    expect(c.partition('t', 0).leader).toBe(2);
    expect(c.image.imbalancedPartitions()).toEqual([{ topicId: 'id-t', partitionId: 0 }]);
    c.unfence(1);
    // Not in the ISR yet: nothing moves.
    expect(maybeBalancePartitionLeaders(c.image).records).toEqual([]);
    // The leader adds 1 back to the ISR (as AlterPartition would).
    c.append([{ type: 'PartitionChangeRecord', topicId: 'id-t', partitionId: 0, isr: [2, 3, 1] }]);
    const run = maybeBalancePartitionLeaders(c.image);
    expect(run.records).toEqual([{ type: 'PartitionChangeRecord', topicId: 'id-t', partitionId: 0, leader: 1 }]);
    expect(run.response).toBe(false);
    expect(run.elections[0]).toMatchObject({ previousLeader: 2, newLeader: 1, source: 'ISR', reason: 'maybeBalancePartitionLeaders' });
    c.apply(run);
    expect(c.image.imbalancedPartitions()).toEqual([]);
  });

  it('stops at the cap and asks to run again at once', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('t', [[1, 2], [1, 2], [1, 2]]);
    for (let p = 0; p < 3; p++) c.append([{ type: 'PartitionChangeRecord', topicId: 'id-t', partitionId: p, leader: 2 }]);
    const first = maybeBalancePartitionLeaders(c.image, 2);
    expect(first.records.map((r) => (r.type === 'PartitionChangeRecord' ? r.partitionId : -1))).toEqual([0, 1]);
    expect(first.response).toBe(true);
    c.apply(first);
    const second = maybeBalancePartitionLeaders(c.image, 2);
    expect(second.records).toHaveLength(1);
    expect(second.response).toBe(false);
  });

  it('a leaderless partition counts as imbalanced; with no valid preferred replica nothing is written', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('t', [[1, 2]]);
    c.fence(2);
    c.fence(1);
    expect(c.image.imbalancedPartitions()).toEqual([{ topicId: 'id-t', partitionId: 0 }]);
    expect(maybeBalancePartitionLeaders(c.image).records).toEqual([]);
  });
});

describe('periodic unclean elections [ReplicationControlManager.maybeElectUncleanLeaders]', () => {
  it('default interval unclean.leader.election.interval.ms = 300000', () => {
    expect(KAFKA_CONTROLLER_TIMER_DEFAULTS.uncleanLeaderElectionIntervalMs).toBe(300_000);
  });

  it('elects uncleanly only for topics with unclean.leader.election.enable=true (topic or cluster level)', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('safe', [[1, 2]]);
    c.createTopic('risky', [[1, 2]], { 'unclean.leader.election.enable': 'true' });
    // Brokers 2 then 1 leave; the ISRs keep 1 (ELR off). Then 2 comes back: not in any ISR.
    c.fence(2);
    c.fence(1);
    expect(c.partition('risky')).toMatchObject({ leader: NO_LEADER, isr: [1] });
    // Unfencing 2 already tries an unclean election for 'risky' (handleBrokerUnfenced uses the topic's election type).
    c.unfence(2);
    expect(c.partition('risky')).toMatchObject({ leader: 2, isr: [2], leaderRecoveryState: 'RECOVERING' });
    expect(c.partition('safe').leader).toBe(NO_LEADER);
    expect(maybeElectUncleanLeaders(c.image).records).toEqual([]);
    // Turning it on at cluster level makes the periodic retry elect 2 for 'safe' too.
    c.append([{ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'unclean.leader.election.enable', value: 'true' }]);
    const run = maybeElectUncleanLeaders(c.image);
    expect(run.records).toEqual([{ type: 'PartitionChangeRecord', topicId: 'id-safe', partitionId: 0, isr: [2], leader: 2, leaderRecoveryState: 'RECOVERING' }]);
    expect(run.elections[0]).toMatchObject({ source: 'UNCLEAN', reason: 'maybeElectUncleanLeaders' });
    expect(run.response).toBe(false);
  });
});

describe('ElectLeaders [ReplicationControlManager.electLeader]', () => {
  it('errors: unknown partition, election not needed, no leader available', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('t', [[1, 2]]);
    expect(electLeader(c.image, 'x', 0, 'PREFERRED').response).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect(electLeader(c.image, 't', 0, 'PREFERRED').response).toBe('ELECTION_NOT_NEEDED');
    expect(electLeader(c.image, 't', 0, 'UNCLEAN').response).toBe('ELECTION_NOT_NEEDED');
    c.fence(2);
    c.fence(1);
    expect(electLeader(c.image, 't', 0, 'PREFERRED').response).toBe('PREFERRED_LEADER_NOT_AVAILABLE');
    expect(electLeader(c.image, 't', 0, 'UNCLEAN').response).toBe('ELIGIBLE_LEADERS_NOT_AVAILABLE');
  });

  it('an UNCLEAN ElectLeaders request elects outside the ISR even when the topic config does not allow it', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('t', [[1, 2]]);
    c.fence(2);
    c.fence(1);
    c.unfence(2);
    const r = electLeader(c.image, 't', 0, 'UNCLEAN');
    expect(r.response).toBe('NONE');
    expect(r.records).toEqual([{ type: 'PartitionChangeRecord', topicId: 'id-t', partitionId: 0, isr: [2], leader: 2, leaderRecoveryState: 'RECOVERING' }]);
  });
});

describe('ElectLeaders results, exactly', () => {
  it('refusals carry no records and no elections; an unknown partition of a known topic is unknown too', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('t', [[1, 2]]);
    expect(electLeader(c.image, 't', 3, 'PREFERRED')).toEqual({ records: [], response: 'UNKNOWN_TOPIC_OR_PARTITION', elections: [] });
    expect(electLeader(c.image, 't', 0, 'PREFERRED')).toEqual({ records: [], response: 'ELECTION_NOT_NEEDED', elections: [] });
    c.fence(2);
    c.fence(1);
    expect(electLeader(c.image, 't', 0, 'UNCLEAN')).toEqual({ records: [], response: 'ELIGIBLE_LEADERS_NOT_AVAILABLE', elections: [] });
  });

  it('a preferred election when another replica leads moves leadership back, and says why', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('t', [[1, 2]]);
    c.fence(1);
    c.unfence(1);
    c.append([{ type: 'PartitionChangeRecord', topicId: 'id-t', partitionId: 0, isr: [2, 1] }]);
    expect(c.partition('t').leader).toBe(2);
    // An UNCLEAN request while a leader exists is not needed, whatever the preferred replica.
    expect(electLeader(c.image, 't', 0, 'UNCLEAN').response).toBe('ELECTION_NOT_NEEDED');
    const r = electLeader(c.image, 't', 0, 'PREFERRED');
    expect(r.response).toBe('NONE');
    expect(r.records).toEqual([{ type: 'PartitionChangeRecord', topicId: 'id-t', partitionId: 0, leader: 1 }]);
    expect(r.elections).toEqual([expect.objectContaining({ topicId: 'id-t', topicName: 't', partitionId: 0, reason: 'electLeaders' })]);
    expect(electLeader(c.image, 't', 0, 'PREFERRED', 'the auto rebalance').elections[0]).toMatchObject({ reason: 'the auto rebalance' });
  });
});

describe('periodic unclean elections: the record cap', () => {
  /** Three leaderless partitions of an unclean topic, each with an acceptable replica outside its ISR. */
  function leaderless(): TestCluster {
    const c = cluster(false, [1, 2]);
    c.createTopic('risky', [[1, 2], [1, 2], [1, 2]], { 'unclean.leader.election.enable': 'false' });
    c.fence(2);
    c.fence(1);
    c.unfence(2);
    c.append([{ type: 'ConfigRecord', resourceType: 'TOPIC', resourceName: 'risky', name: 'unclean.leader.election.enable', value: 'true' }]);
    expect(c.image.partitionsWithNoLeader()).toHaveLength(3);
    return c;
  }

  it('stops at the cap and says so; below it, elects every partition and says it did not hit it', () => {
    const capped = maybeElectUncleanLeaders(leaderless().image, 2);
    expect(capped.records).toHaveLength(2);
    expect(capped.response).toBe(true);
    const all = maybeElectUncleanLeaders(leaderless().image, 3);
    expect(all.records).toHaveLength(3);
    // Exactly at the cap counts as hitting it (more may be waiting).
    expect(all.response).toBe(true);
    const roomy = maybeElectUncleanLeaders(leaderless().image, 4);
    expect(roomy.records).toHaveLength(3);
    expect(roomy.response).toBe(false);
    expect(roomy.elections.map((e) => e.reason)).toEqual(['maybeElectUncleanLeaders', 'maybeElectUncleanLeaders', 'maybeElectUncleanLeaders']);
  });

  it('with nothing leaderless it does nothing and has not hit the cap', () => {
    const c = cluster(false, [1, 2]);
    c.createTopic('risky', [[1, 2]], { 'unclean.leader.election.enable': 'true' });
    expect(maybeElectUncleanLeaders(c.image)).toEqual({ records: [], response: false, elections: [] });
  });
});

