import { describe, expect, it } from 'vitest';
import { isValidTransition, VALID_PREVIOUS_STATES, type ClassicGroupState } from '../../../sim/kafka/coordinator/classicGroupState';
import {
  appendErrorToResponseError,
  heartbeatError,
  sessionTimeoutError,
  syncGroupError,
  validateMember,
  validateOffsetCommit,
  type GroupView,
} from '../../../sim/kafka/coordinator/classicGroupValidation';
import { describeGroupOffsets, formatGroupOffsets } from '../../../sim/kafka/coordinator/consumerGroupLag';
import { groupMetadataRecord, offsetCommitRecord, offsetTombstone, replayRecords } from '../../../sim/kafka/coordinator/groupCoordinatorRecords';

const STATES: ClassicGroupState[] = ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'];

function group(state: ClassicGroupState, generationId = 5, members: string[] = ['m1'], statics: Record<string, string> = {}): GroupView {
  return { state, generationId, hasMember: (id) => members.includes(id), staticMemberId: (iid) => statics[iid] };
}

describe('classic group states (reference 9.1)', () => {
  it('allows exactly the transitions of ClassicGroupState', () => {
    const allowed = new Set(['PreparingRebalance>Empty', 'Stable>PreparingRebalance', 'CompletingRebalance>PreparingRebalance', 'Empty>PreparingRebalance', 'PreparingRebalance>CompletingRebalance', 'CompletingRebalance>Stable']);
    for (const from of STATES) {
      for (const to of STATES) {
        const expected = to === 'Dead' || allowed.has(`${from}>${to}`);
        expect(isValidTransition(from, to), `${from} -> ${to}`).toBe(expected);
      }
    }
    expect(VALID_PREVIOUS_STATES.Dead).toHaveLength(5);
  });
});

describe('request checks', () => {
  it('validateMember: unknown members, fenced static instances', () => {
    const g = group('Stable', 5, ['m1', 'm2'], { i1: 'm2' });
    expect(validateMember(g, 'm1', null)).toBe('NONE');
    expect(validateMember(g, 'mX', null)).toBe('UNKNOWN_MEMBER_ID');
    expect(validateMember(g, 'm2', 'i1')).toBe('NONE');
    expect(validateMember(g, 'm1', 'i1')).toBe('FENCED_INSTANCE_ID');
    expect(validateMember(g, 'm1', 'i9')).toBe('UNKNOWN_MEMBER_ID');
  });

  it('validateOffsetCommit follows ClassicGroup.validateOffsetCommit', () => {
    expect(validateOffsetCommit(group('Dead'), 'm1', null, 5)).toBe('COORDINATOR_NOT_AVAILABLE');
    expect(validateOffsetCommit(group('Empty', 5, []), '', null, -1)).toBe('NONE');
    expect(validateOffsetCommit(group('Stable'), '', null, -1)).toBe('UNKNOWN_MEMBER_ID');
    expect(validateOffsetCommit(group('Stable'), 'mX', null, 5)).toBe('UNKNOWN_MEMBER_ID');
    expect(validateOffsetCommit(group('Stable'), 'm1', null, 4)).toBe('ILLEGAL_GENERATION');
    expect(validateOffsetCommit(group('Stable'), 'm1', null, 5)).toBe('NONE');
    expect(validateOffsetCommit(group('PreparingRebalance'), 'm1', null, 5)).toBe('NONE');
    expect(validateOffsetCommit(group('CompletingRebalance'), 'm1', null, 5)).toBe('REBALANCE_IN_PROGRESS');
    // Member checks come before the state check.
    expect(validateOffsetCommit(group('CompletingRebalance'), 'm1', null, 4)).toBe('ILLEGAL_GENERATION');
  });

  it('heartbeat and sync errors by state', () => {
    expect(heartbeatError(group('Stable'), 'm1', null, 5)).toBe('NONE');
    expect(heartbeatError(group('CompletingRebalance'), 'm1', null, 5)).toBe('NONE');
    expect(heartbeatError(group('PreparingRebalance'), 'm1', null, 5)).toBe('REBALANCE_IN_PROGRESS');
    expect(heartbeatError(group('Stable'), 'm1', null, 6)).toBe('ILLEGAL_GENERATION');
    expect(heartbeatError(group('Empty', 5, []), 'm1', null, 5)).toBe('UNKNOWN_MEMBER_ID');
    expect(heartbeatError(group('Dead'), 'm1', null, 5)).toBe('COORDINATOR_NOT_AVAILABLE');
    expect(syncGroupError(group('Stable'), 'm1', null, 4)).toBe('ILLEGAL_GENERATION');
    expect(syncGroupError(group('Stable'), 'mX', null, 5)).toBe('UNKNOWN_MEMBER_ID');
  });

  it('session timeouts must be within group.min/max.session.timeout.ms', () => {
    expect(sessionTimeoutError(5999, 6000, 1_800_000)).toBe('INVALID_SESSION_TIMEOUT');
    expect(sessionTimeoutError(6000, 6000, 1_800_000)).toBe('NONE');
    expect(sessionTimeoutError(1_800_000, 6000, 1_800_000)).toBe('NONE');
    expect(sessionTimeoutError(1_800_001, 6000, 1_800_000)).toBe('INVALID_SESSION_TIMEOUT');
  });

  it('maps write failures as the coordinator runtime does', () => {
    expect(appendErrorToResponseError('NOT_ENOUGH_REPLICAS')).toBe('COORDINATOR_NOT_AVAILABLE');
    expect(appendErrorToResponseError('REQUEST_TIMED_OUT')).toBe('COORDINATOR_NOT_AVAILABLE');
    expect(appendErrorToResponseError('NOT_LEADER_OR_FOLLOWER')).toBe('NOT_COORDINATOR');
    expect(appendErrorToResponseError('KAFKA_STORAGE_ERROR')).toBe('NOT_COORDINATOR');
    expect(appendErrorToResponseError('RECORD_LIST_TOO_LARGE')).toBe('UNKNOWN_SERVER_ERROR');
    expect(appendErrorToResponseError('NONE')).toBe('NONE');
  });
});

describe('__consumer_offsets records', () => {
  it('replay: the last value of a key wins, tombstones delete, offsets without group metadata are kept', () => {
    const o = (offset: number) => ({ topic: 't', partition: 0, offset, leaderEpoch: 1, metadata: '', commitTimestampMs: 5 });
    const meta = { protocolType: 'consumer', generation: 3, protocol: 'range', leader: 'm1', currentStateTimestampMs: 1, members: [] };
    const state = replayRecords([
      offsetCommitRecord('g', o(10)),
      groupMetadataRecord('g', meta),
      offsetCommitRecord('g', o(20)),
      offsetCommitRecord('simple', { ...o(7), partition: 3 }),
      offsetCommitRecord('gone', o(1)),
      offsetTombstone('gone', 't', 0),
      groupMetadataRecord('old', meta),
      groupMetadataRecord('old', null),
    ]);
    expect([...state.groups.keys()]).toEqual(['g']);
    expect(state.groups.get('g')!.generation).toBe(3);
    expect(state.offsets.get('g')!.get('t-0')!.offset).toBe(20);
    expect(state.offsets.get('simple')!.get('t-3')!.offset).toBe(7);
    expect(state.offsets.has('gone')).toBe(false);
  });
});

describe('kafka-consumer-groups --describe', () => {
  it('rows per assigned or committed partition, LAG = LOG-END-OFFSET - CURRENT-OFFSET, "-" where unknown', () => {
    const rows = describeGroupOffsets(
      {
        groupId: 'g',
        state: 'Stable',
        generationId: 2,
        protocol: 'range',
        leader: 'm1',
        members: [{ memberId: 'm1', groupInstanceId: null, clientId: 'c1', assignment: [{ topic: 't', partition: 1 }, { topic: 't', partition: 0 }] }],
        offsets: [
          { topic: 't', partition: 0, offset: 1200, leaderEpoch: 0, metadata: '', commitTimestampMs: 0 },
          { topic: 't', partition: 2, offset: 5, leaderEpoch: 0, metadata: '', commitTimestampMs: 0 },
        ],
      },
      (_t, p) => [1500, 40, 5][p]!,
    );
    expect(rows.map((r) => [r.partition, r.currentOffset, r.logEndOffset, r.lag, r.consumerId])).toEqual([
      [0, 1200, 1500, 300, 'm1'],
      [1, null, 40, null, 'm1'],
      [2, 5, 5, 0, '-'],
    ]);
    const text = formatGroupOffsets(rows).split('\n');
    expect(text[0]).toBe('GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID CLIENT-ID');
    expect(text[2]).toBe('g     t     1         -              40             -   m1          c1');
  });
});
